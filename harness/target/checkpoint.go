package target

import (
	"path/filepath"
	"strconv"

	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// CheckpointValues are one checkpoint's placeholder values: {profile}, {testcase}, {family_dir},
// {bundle_name}, {work}, and the testcase's own native-run settings {cfg_scale} and {max_tokens},
// and {language} (filled from the served base request at run time), empty when it declares none (optional flags then leave them out; see Expand). The run and
// `qual plan` both render commands from these, so the plan shows what the run executes.
func (t *Target) CheckpointValues(m *manifest.Manifest, tc manifest.Testcase, work string) map[string]string {
	familyDir := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(m.Path)))) // families/<dir>/tests/manifests
	if t.Layout == "tests/e2e" {
		familyDir = filepath.Base(filepath.Dir(filepath.Dir(m.Path))) // tests/e2e/models/<dir>/manifests
	}
	v := map[string]string{"profile": m.Name, "testcase": tc.Name, "family_dir": familyDir,
		"bundle_name": m.Bundle, "work": work, "cfg_scale": "", "max_tokens": "", "language": ""}
	if tc.CfgScale != nil {
		v["cfg_scale"] = strconv.FormatFloat(*tc.CfgScale, 'g', -1, 64)
	}
	if tc.MaxNewTokens != nil {
		v["max_tokens"] = strconv.Itoa(*tc.MaxNewTokens)
	}
	return v
}
