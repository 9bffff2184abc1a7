package target

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// fakeSide answers each preflight command as a fake version report: the first argument the
// template renders decides the answer.
func fakeSide(answers map[string]string, errs map[string]error) Runner {
	return func(_ context.Context, args, _ []string, _ string) ([]byte, error) {
		key := strings.Join(args, " ")
		return []byte(answers[key]), errs[key]
	}
}

func TestPreflightStopsOnAnyDifferenceNamingBothSides(t *testing.T) {
	tg := &Target{Name: "t", Root: "/r", Placeholders: map[string]string{"python": "py", "serve_python": "spy", "worker": "/r/w"},
		Preflight: []Preflight{
			{Name: "TensorRT", Host: []string{"{python}", "trt"}, Image: []string{"{serve_python}", "trt"}},
			{Name: "worker libraries", Host: []string{"ldd", "{worker}"}, Image: []string{"ldd", "{worker}"}, Output: "ldd"},
		}}
	ldd := "\tlinux-vdso.so.1 (0x7ffd)\n\tlibnvinfer.so.11 => /opt/venv/lib/libnvinfer.so.11 (0x7f)\n\tlibcudart.so.13 => /usr/local/cuda/lib64/libcudart.so.13 (0x7f)\n"
	lddElsewhere := strings.ReplaceAll(ldd, "/opt/venv/lib", "/usr/lib/x86_64-linux-gnu")
	host := map[string]string{"py trt": "11.1.0.106\n", "ldd /r/w": ldd}
	for _, c := range []struct {
		name  string
		image map[string]string
		errs  map[string]error
		want  string // "" = passes
	}{
		{"same", map[string]string{"spy trt": "11.1.0.106", "ldd /r/w": lddElsewhere}, nil, ""},
		{"tensorrt", map[string]string{"spy trt": "11.0.0.114", "ldd /r/w": ldd}, nil, "the host has 11.1.0.106, the serving image has 11.0.0.114"},
		{"unresolved", map[string]string{"spy trt": "11.1.0.106", "ldd /r/w": strings.ReplaceAll(ldd, "/opt/venv/lib/libnvinfer.so.11 (0x7f)", "not found")}, nil, "libnvinfer.so.11 not found"},
		{"other soname", map[string]string{"spy trt": "11.1.0.106", "ldd /r/w": strings.ReplaceAll(ldd, "libcudart.so.13", "libcudart.so.12")}, nil, "libcudart.so.12 resolved"},
		{"unreadable", map[string]string{}, map[string]error{"spy trt": errors.New("No module named 'tensorrt'")}, "cannot read it on the image"},
	} {
		res, err := tg.CheckPreflight(context.Background(), fakeSide(host, nil), fakeSide(c.image, c.errs))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want == "" && len(res) != 2:
			t.Errorf("%s: %d results", c.name, len(res))
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want it to name %q", c.name, err, c.want)
		}
	}
}
