package whisper

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/native/family"
)

// The worker interpreter comes from the Host the binaries were given (--python, --cache), never
// from the environment: harness/config reads QUAL_WHISPER_PYTHON and QUAL_CACHE and passes them.
func TestPythonComesFromTheHostNotTheEnvironment(t *testing.T) {
	envCache := t.TempDir()
	venvPython := func(cache string) string {
		p := filepath.Join(cache, "whisper-venv", "bin", "python")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	venvPython(envCache)
	t.Setenv("QUAL_WHISPER_PYTHON", "/from/the/environment/python")
	t.Setenv("QUAL_CACHE", envCache)
	t.Setenv("HOME", t.TempDir()) // the default cache holds no venv
	_, imageErr := os.Stat(ImagePython)
	onImage := imageErr == nil // the server image's venv comes first when it is there

	if got, err := Python(family.Host{Python: "/given/python"}); err != nil || got != "/given/python" {
		t.Errorf("given --python: %q %v", got, err)
	}
	given := t.TempDir()
	want := venvPython(given)
	if onImage {
		want = ImagePython
	}
	if got, err := Python(family.Host{Cache: given}); err != nil || got != want {
		t.Errorf("given --cache: %q %v, want %s", got, err, want)
	}
	got, err := Python(family.Host{})
	if onImage && got != ImagePython {
		t.Errorf("nothing given on the image: %q %v", got, err)
	}
	if !onImage && err == nil {
		t.Errorf("nothing given: %q was found (the environment's QUAL_* must not be read)", got)
	}
}

// family.OnHost binds the whisper family to the binaries' Host.
func TestOnHostBindsTheFamily(t *testing.T) {
	h := family.Host{Cache: "/c", Python: "/p"}
	f, ok := family.OnHost(Family{}, h).(Family)
	if !ok || f.Host != h {
		t.Fatalf("OnHost: %#v", f)
	}
}
