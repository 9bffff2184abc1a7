package pinned

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// CheckInlineDataset checks a row whose inputs are the prompt its TRTMC testcase carries itself
// (dataset.path "<manifest>#testcases/<name>/<field>", workload.DatasetOf) as strictly as a
// pinned dataset file: the manifest must be the row's inventory manifest, read where the run
// read it (the repository for a reference row, the TRTMC checkout QUAL_TRTMC_ROOT for a trtmc
// stage), with the recorded sha256; the testcase must be the gate's and carry no dataset and its
// prompt in exactly that field; one item; every request's input is that testcase's prompt. A
// TRTMC ASR testcase's own clip (<manifest>#testcases/<name>/test_input_audio) is checked the same
// way, except that the recorded sha256 is the clip's, re-hashed where the manifest resolves it.
func (p Pins) CheckInlineDataset(where string, s evidence.Stage, r evidence.Result, report func(where, format string, args ...any)) {
	file, name, field, ok := workload.InlineSource(r.Dataset.Path)
	if !ok {
		return // a dataset file: checkStored
	}
	row, ok := InventoryRow(s, r.Profile)
	if !ok {
		report(where, "dataset.path %q names a manifest's testcase, but the stage's inventory has no row for profile %s", r.Dataset.Path, r.Profile)
		return
	}
	if filepath.ToSlash(row.Manifest) != file {
		report(where, "dataset.path %q names manifest %s, the row's manifest is %s", r.Dataset.Path, file, row.Manifest)
		return
	}
	root, rootName, err := p.ManifestRoot(s, fmt.Sprintf("dataset.path %q", r.Dataset.Path))
	if err != nil {
		report(where, "%v", err)
		return
	}
	path, err := workload.InsideDir(root, "dataset.path", file)
	if err != nil {
		report(where, "%v", err)
		return
	}
	data, err := os.ReadFile(path)
	if field == audioField { // the recorded sha256 is the clip's: checkInputAudio
		if err != nil {
			report(r.Dataset.Path, "manifest in %s: %v", rootName, err)
			return
		}
	} else if sum := sha256.Sum256(data); err != nil || hex.EncodeToString(sum[:]) != r.Dataset.SHA256 {
		report(r.Dataset.Path, "manifest in %s: sha256 %x, evidence records %s (%v)", rootName, sum, r.Dataset.SHA256, err)
		return
	}
	var m struct {
		Name      string              `json:"name"`
		Testcases []manifest.Testcase `json:"testcases"`
	}
	if err := json.Unmarshal(data, &m); err != nil || m.Name != r.Profile {
		report(r.Dataset.Path, "manifest is not profile %s's (name %q, %v)", r.Profile, m.Name, err)
		return
	}
	j := slices.IndexFunc(m.Testcases, func(tc manifest.Testcase) bool { return tc.Name == name })
	switch {
	case j < 0:
		report(where, "dataset.path %q: manifest %s has no testcase %q", r.Dataset.Path, file, name)
		return
	case r.Gate != nil && r.Gate.Testcase != name:
		report(where, "dataset.path %q names testcase %q, the gate's is %q", r.Dataset.Path, name, r.Gate.Testcase)
	case field == audioField:
		if !checkInputAudio(manifest.Manifest{Path: path}, m.Testcases[j], rootName, r, report) {
			return
		}
	case m.Testcases[j].InlinePromptField() != field || field == "":
		report(where, "dataset.path %q: testcase %q's input is not its %s (its own prompt field: %q; dataset %q)", r.Dataset.Path, name, field, m.Testcases[j].InlinePromptField(), m.Testcases[j].Dataset)
		return
	}
	what := "prompt"
	if field == audioField {
		what = "clip"
	}
	if r.Dataset.Items != 1 {
		report(where, "dataset.path %q is one %s, evidence records %d items", r.Dataset.Path, what, r.Dataset.Items)
	}
	for _, o := range r.Outputs {
		if o.InputID != name {
			report(where, "request %s: input_id %q is not testcase %q's %s", o.RequestID, o.InputID, name, what)
		}
	}
}

// audioField is the testcase field a TRTMC ASR testcase names its own clip in.
const audioField = "test_input_audio"

// checkInputAudio: the testcase carries no dataset and its test_input_audio resolves, as the run
// resolved it (manifest.InputAudioPath: inside the manifest's family test directory), to a WAV
// file with the recorded sha256.
func checkInputAudio(m manifest.Manifest, tc manifest.Testcase, rootName string, r evidence.Result, report func(where, format string, args ...any)) bool {
	wav, ok, err := m.InputAudioPath(tc)
	if !ok || err != nil {
		report(r.Dataset.Path, "testcase %q's input is not its own test_input_audio clip (dataset %q, test_input_audio %q, %v)", tc.Name, tc.Dataset, tc.InputAudio, err)
		return false
	}
	data, err := os.ReadFile(wav)
	if sum := sha256.Sum256(data); err != nil || hex.EncodeToString(sum[:]) != r.Dataset.SHA256 {
		report(r.Dataset.Path, "test_input_audio %s in %s: sha256 %x, evidence records %s (%v)", tc.InputAudio, rootName, sum, r.Dataset.SHA256, err)
		return false
	}
	return true
}

// inlinePrompt is the prompt a row's TRTMC testcase carries itself, in the field dataset.path
// names, read from that manifest where the run read it; ok is false when it cannot be read
// (checkInlineDataset, which also ties the manifest to the row and its sha256, says why).
func (p Pins) inlinePrompt(s evidence.Stage, r evidence.Result) (dataset.Prompt, bool) {
	file, name, field, ok := workload.InlineSource(r.Dataset.Path)
	root, _, err := p.ManifestRoot(s, "dataset.path")
	if !ok || err != nil {
		return dataset.Prompt{}, false
	}
	path, err := workload.InsideDir(root, "dataset.path", file)
	if err != nil {
		return dataset.Prompt{}, false
	}
	data, err := os.ReadFile(path)
	var m struct {
		Testcases []manifest.Testcase `json:"testcases"`
	}
	if err != nil || json.Unmarshal(data, &m) != nil {
		return dataset.Prompt{}, false
	}
	j := slices.IndexFunc(m.Testcases, func(tc manifest.Testcase) bool { return tc.Name == name && tc.InlinePromptField() == field })
	if j < 0 {
		return dataset.Prompt{}, false
	}
	return m.Testcases[j].InlinePrompt()
}
