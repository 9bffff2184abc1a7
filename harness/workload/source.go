package workload

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// DatasetOf says, for the evidence, where a testcase's inputs come from. A pinned dataset is its
// repository-relative path and that file's sha256. A TRTMC text-to-image testcase that carries
// its prompt itself is the manifest file (relative to manifestRoot, where the inventory row names
// it) + "#testcases/<name>/<field>", with the manifest file's sha256 (InlineSource reads it
// back). A testcase with neither is an error naming the manifest and the testcase. Items is the
// caller's: the number of inputs read.
func DatasetOf(root, manifestRoot string, m manifest.Manifest, tc manifest.Testcase) (evidence.Dataset, error) {
	if tc.Dataset != "" {
		sum, err := bundle.FileSHA256(filepath.Join(root, tc.Dataset))
		if err != nil {
			return evidence.Dataset{}, fmt.Errorf("manifest %s testcase %q: dataset: %w", m.Path, tc.Name, err)
		}
		return evidence.Dataset{Path: tc.Dataset, SHA256: sum, Note: asrSetNote(filepath.Join(root, tc.Dataset))}, nil
	}
	if wav, ok, err := m.InputAudioPath(tc); ok || err != nil {
		return inputAudioDataset(manifestRoot, m, tc, wav, err)
	}
	field := tc.InlinePromptField()
	if field == "" {
		return evidence.Dataset{}, fmt.Errorf("manifest %s testcase %q: no dataset and no prompt, test_prompt or test_input_audio: no input to send", m.Path, tc.Name)
	}
	rel, err := relPath(manifestRoot, m.Path)
	if err != nil {
		return evidence.Dataset{}, err
	}
	sum, err := bundle.FileSHA256(m.Path)
	if err != nil {
		return evidence.Dataset{}, fmt.Errorf("manifest %s: %w", m.Path, err)
	}
	return evidence.Dataset{Path: rel + "#testcases/" + tc.Name + "/" + field, SHA256: sum}, nil
}

// asrSetNote names a pinned ASR set (its name says which corpora, splits and ids it holds);
// other pins have no note.
func asrSetNote(path string) string {
	if filepath.Ext(path) != ".json" {
		return ""
	}
	set, err := dataset.ReadASR(path)
	if err != nil {
		return ""
	}
	return "pinned ASR set " + set.Name
}

// NoGold is what the evidence says of a TRTMC ASR testcase's own clip: TRTMC gives no
// transcript for it (its oracle is a reference backend), so no gold WER is claimed.
const NoGold = "no gold transcript: the TRTMC testcase carries its clip (test_input_audio) and no text; no gold WER is computed"

// inputAudioDataset is a TRTMC ASR testcase's own clip: <manifest>#testcases/<name>/test_input_audio
// with the sha256 of the WAV file it resolves to in the checkout.
func inputAudioDataset(manifestRoot string, m manifest.Manifest, tc manifest.Testcase, wav string, err error) (evidence.Dataset, error) {
	if err != nil {
		return evidence.Dataset{}, err
	}
	rel, err := relPath(manifestRoot, m.Path)
	if err != nil {
		return evidence.Dataset{}, err
	}
	sum, err := bundle.FileSHA256(wav)
	if err != nil {
		return evidence.Dataset{}, fmt.Errorf("manifest %s testcase %q: test_input_audio: %w", m.Path, tc.Name, err)
	}
	return evidence.Dataset{Path: rel + "#testcases/" + tc.Name + "/test_input_audio", SHA256: sum, Note: NoGold}, nil
}

// InlineSource splits a dataset path DatasetOf made for a testcase's own prompt into the
// manifest file, the testcase and the field; ok is false for a dataset file's path.
func InlineSource(path string) (manifestPath, testcase, field string, ok bool) {
	file, frag, found := strings.Cut(path, "#")
	rest, isCase := strings.CutPrefix(frag, "testcases/")
	i := strings.LastIndex(rest, "/")
	if !found || !isCase || file == "" || i <= 0 || i == len(rest)-1 {
		return "", "", "", false
	}
	return file, rest[:i], rest[i+1:], true
}

// relPath is path relative to root, as a slash path; a path outside root is an error (the
// evidence names manifests where verify can find them again).
func relPath(root, path string) (string, error) {
	absRoot, err1 := filepath.Abs(root)
	absPath, err2 := filepath.Abs(path)
	rel, err3 := filepath.Rel(absRoot, absPath)
	if err1 != nil || err2 != nil || err3 != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("manifest %s is not under the manifest root %s", path, root)
	}
	return filepath.ToSlash(rel), nil
}

// datasetPath is the pinned dataset a stage whose inputs are files requires of its testcase.
func datasetPath(m manifest.Manifest, tc manifest.Testcase) (string, error) {
	if tc.Dataset == "" {
		return "", fmt.Errorf("manifest %s testcase %q names no dataset: this stage's inputs are a pinned dataset", m.Path, tc.Name)
	}
	return tc.Dataset, nil
}

// PinnedSource is what a testcase's stored inputs are checked against: its pinned dataset (under
// root), or the one clip it carries itself (test_input_audio, sent under its name, whose sha256
// is the recorded dataset's, datasetSHA), or the one prompt it carries itself.
func PinnedSource(root string, m manifest.Manifest, tc manifest.Testcase, datasetSHA string) InputSource {
	if tc.Dataset != "" {
		return InputSource{DatasetPath: filepath.Join(root, tc.Dataset)}
	}
	if _, own, _ := m.InputAudioPath(tc); own {
		return InputSource{OwnClip: &dataset.ASRClip{ID: tc.Name, SHA256: datasetSHA}}
	}
	if p, own := tc.InlinePrompt(); own {
		return InputSource{OwnPrompt: &p}
	}
	return InputSource{}
}
