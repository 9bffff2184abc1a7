package gpu

import (
	"reflect"
	"strings"
	"testing"

	"github.com/moby/moby/api/types/container"
)

func TestDecide(t *testing.T) {
	all := []container.DeviceRequest{{Driver: "nvidia", Count: -1, Capabilities: [][]string{{"gpu"}}}}
	cases := []struct {
		spec    string
		nvidia  bool
		want    []container.DeviceRequest
		passed  string
		notice  bool
		wantErr bool
	}{
		{"none", true, nil, "none", false, false},
		{"", false, nil, "none", false, false},
		{"auto", true, all, "all", false, false},
		{"auto", false, nil, "none", true, false}, // degrades, with a notice
		{"all", true, all, "all", false, false},
		{"all", false, nil, "", false, true}, // explicit request: refused, not degraded
		{"0,2", true, []container.DeviceRequest{{Driver: "nvidia", DeviceIDs: []string{"0", "2"}, Capabilities: [][]string{{"gpu"}}}}, "0,2", false, false},
		{"0,,2", true, nil, "", false, true},
	}
	for _, c := range cases {
		r, err := Parse(c.spec)
		var d Decision
		if err == nil {
			d, err = Decide(r, c.nvidia)
		}
		if (err != nil) != c.wantErr {
			t.Errorf("%q nvidia=%v: err %v", c.spec, c.nvidia, err)
			continue
		}
		if err != nil {
			if !strings.Contains(err.Error(), "gpu") {
				t.Errorf("%q: error does not say what failed: %v", c.spec, err)
			}
			continue
		}
		if !reflect.DeepEqual(d.Requests, c.want) || d.Passed != c.passed || (d.Notice != "") != c.notice {
			t.Errorf("%q nvidia=%v: got %+v", c.spec, c.nvidia, d)
		}
	}
}
