package whisper

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/family/asrgate"
)

// UpstreamTool is what the upstream transcripts come from: faster-whisper's WhisperModel.transcribe()
// called on the WAV files (faster-whisper decodes them itself), outside this family's code.
const UpstreamTool = "faster_whisper.WhisperModel.transcribe"

// TranscribeUpstream runs upstream.py in the whisper venv on the bundle's own model files,
// extracted into workDir, with the bundle's settings, over the clips.
func TranscribeUpstream(h family.Host, b *bundle.Bundle, clips []dataset.Materialized, workDir string) (asrgate.Upstream, error) {
	py, err := Python(h)
	if err != nil {
		return asrgate.Upstream{}, err
	}
	modelDir := filepath.Join(workDir, "model")
	s, err := ExtractModel(b, modelDir)
	if err != nil {
		return asrgate.Upstream{}, err
	}
	if len(clips) == 0 {
		return asrgate.Upstream{}, fmt.Errorf("no clips to transcribe")
	}
	script := filepath.Join(workDir, "upstream.py")
	if err := writeScripts(workDir, map[string][]byte{"upstream.py": upstreamScript}); err != nil {
		return asrgate.Upstream{}, err
	}
	opts, err := json.Marshal(optionsOf(s))
	if err != nil {
		return asrgate.Upstream{}, err
	}
	args := []string{script, modelDir, string(opts)}
	var redacted []string
	for _, k := range slices.Sorted(maps.Keys(s.KernelEnv)) {
		redacted = append(redacted, k+"="+s.KernelEnv[k])
	}
	redacted = append(redacted, "python", "native/families/whisper/upstream.py", "WORK/model", "'"+string(opts)+"'")
	for _, c := range clips {
		args = append(args, c.Path)
		redacted = append(redacted, "CLIPS/"+filepath.Base(c.Path))
	}
	cmd := exec.Command(py, args...)
	cmd.Env = processEnv(s)
	out, err := cmd.Output()
	if err != nil {
		return asrgate.Upstream{}, fmt.Errorf("upstream transcription (%s upstream.py) failed: %w%s", py, err, stderrOf(err))
	}
	var res struct {
		Versions    map[string]string `json:"versions"`
		Kernels     map[string]string `json:"kernels"`
		Transcripts map[string]string `json:"transcripts"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return asrgate.Upstream{}, fmt.Errorf("upstream transcription output %q: %w", tailString(string(out), 500), err)
	}
	if err := checkKernels(res.Kernels, s); err != nil {
		return asrgate.Upstream{}, fmt.Errorf("upstream transcription: %w", err)
	}
	refs := asrgate.Upstream{
		Tool: UpstreamTool, ToolPackage: "faster-whisper", ToolVersion: res.Versions["faster-whisper"], Versions: res.Versions,
		Command:  strings.Join(redacted, " "),
		Settings: opts,
		Note: "model files extracted from the bundle (`trtmc-native extract`); run in the whisper venv (`make deps`); " +
			"faster-whisper decodes the WAV files itself; the process runs with the bundle's kernel_env (CTranslate2 checked to select that instruction set); transcript = the segments' text joined, stripped",
	}
	for _, c := range clips {
		text, ok := res.Transcripts[c.ID]
		if !ok {
			return asrgate.Upstream{}, fmt.Errorf("upstream transcription printed no transcript for %s", c.ID)
		}
		refs.Transcripts = append(refs.Transcripts, asrgate.Transcript{ID: c.ID, Text: text})
	}
	return refs, nil
}

// NormalizeEnglish applies Whisper's EnglishTextNormalizer (PyPI whisper-normalizer, in the
// whisper venv) to texts; it returns the normalized texts and the package version.
func NormalizeEnglish(h family.Host, texts []string, workDir string) ([]string, string, error) {
	py, err := Python(h)
	if err != nil {
		return nil, "", err
	}
	script := filepath.Join(workDir, "normalize.py")
	if err := os.WriteFile(script, normalizeScript, 0o600); err != nil {
		return nil, "", fmt.Errorf("write normalizer script: %w", err)
	}
	in, err := json.Marshal(texts)
	if err != nil {
		return nil, "", err
	}
	cmd := exec.Command(py, script)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		return nil, "", fmt.Errorf("whisper-normalizer: %w%s", err, stderrOf(err))
	}
	var res struct {
		Version string   `json:"version"`
		Texts   []string `json:"texts"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Texts) != len(texts) {
		return nil, "", fmt.Errorf("whisper-normalizer output %q: %v", tailString(string(out), 500), err)
	}
	return res.Texts, res.Version, nil
}

// UpstreamTranscripts implements family.UpstreamTranscriber: faster-whisper's transcripts of the
// clips (TranscribeUpstream).
func (f Family) UpstreamTranscripts(b *bundle.Bundle, clips []dataset.Materialized, workDir string) (any, error) {
	return TranscribeUpstream(f.Host, b, clips, workDir)
}

// ExtractModel implements family.ModelExtractor: the model files and the settings they were
// converted with.
func (Family) ExtractModel(b *bundle.Bundle, dir string) (map[string]any, error) {
	s, err := ExtractModel(b, dir)
	if err != nil {
		return nil, err
	}
	return map[string]any{"settings": s}, nil
}
