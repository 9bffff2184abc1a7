package sphinx

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/family/asrgate"
)

// UpstreamTool is the upstream program whose transcripts the gate compares against. It does a
// full-utterance decode per file, like the Task; pocketsphinx_continuous segments by voice
// activity and does not transcribe the whole clip.
const UpstreamTool = "pocketsphinx_batch"

// TranscribeUpstream runs the upstream tool on the bundle's own model files (extracted into
// workDir) over the materialized clips. The clips are canonical 44-byte-header WAVs, so
// `-adchdr 44` skips exactly the header; without it the header is decoded as audio.
func TranscribeUpstream(b *bundle.Bundle, clips []dataset.Materialized, workDir string) (asrgate.Upstream, error) {
	tool, err := exec.LookPath(UpstreamTool)
	if err != nil {
		return asrgate.Upstream{}, fmt.Errorf("%s not installed (Debian package pocketsphinx; run `make deps`): %w", UpstreamTool, err)
	}
	modelDir := filepath.Join(workDir, "model")
	args, err := ExtractModel(b, modelDir)
	if err != nil {
		return asrgate.Upstream{}, err
	}
	if len(clips) == 0 {
		return asrgate.Upstream{}, fmt.Errorf("no clips to transcribe")
	}
	clipDir := filepath.Dir(clips[0].Path)
	ctl, hyp := filepath.Join(workDir, "clips.ctl"), filepath.Join(workDir, "clips.hyp")
	var ids strings.Builder
	for _, c := range clips {
		if filepath.Dir(c.Path) != clipDir {
			return asrgate.Upstream{}, fmt.Errorf("clips must share one directory")
		}
		fmt.Fprintln(&ids, c.ID)
	}
	if err := os.WriteFile(ctl, []byte(ids.String()), 0o644); err != nil {
		return asrgate.Upstream{}, fmt.Errorf("write control file: %w", err)
	}
	batch := append([]string{"-adcin", "yes", "-adchdr", "44", "-cepdir", clipDir, "-cepext", ".wav", "-ctl", ctl}, args...)
	batch = append(batch, "-hyp", hyp)
	cmd := exec.Command(tool, append(batch, "-logfn", filepath.Join(workDir, "batch.log"))...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return asrgate.Upstream{}, fmt.Errorf("%s failed: %w\n%s (log: %s)", UpstreamTool, err, out, filepath.Join(workDir, "batch.log"))
	}
	texts, err := readHyp(hyp)
	if err != nil {
		return asrgate.Upstream{}, err
	}
	refs := asrgate.Upstream{
		Tool: UpstreamTool, ToolPackage: "pocketsphinx", ToolVersion: packageVersion("pocketsphinx"),
		Command: strings.Join(append([]string{UpstreamTool}, redact(batch, workDir, clipDir)...), " "),
		Note:    "model files extracted from the bundle (`trtmc-native extract`); clips are 44-byte-header PCM16 WAVs, so -adchdr 44 skips exactly the header",
	}
	for _, c := range clips {
		text, ok := texts[c.ID]
		if !ok {
			return asrgate.Upstream{}, fmt.Errorf("%s printed no hypothesis for %s", UpstreamTool, c.ID)
		}
		refs.Transcripts = append(refs.Transcripts, asrgate.Transcript{ID: c.ID, Text: text})
	}
	return refs, nil
}

// readHyp parses "words (id score)" lines.
func readHyp(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read hypotheses: %w", err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		open := strings.LastIndex(line, "(")
		if open < 0 || !strings.HasSuffix(line, ")") {
			return nil, fmt.Errorf("unexpected hypothesis line %q", line)
		}
		fields := strings.Fields(line[open+1 : len(line)-1])
		if len(fields) == 0 {
			return nil, fmt.Errorf("hypothesis line without id: %q", line)
		}
		out[fields[0]] = strings.TrimSpace(line[:open])
	}
	return out, sc.Err()
}

// redact names the clip directory CLIPS and the scratch directory WORK in the recorded command,
// so that it reads the same wherever it ran.
func redact(args []string, workDir, clipDir string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == clipDir {
			out[i] = "CLIPS"
			continue
		}
		out[i] = strings.ReplaceAll(a, workDir, "WORK")
	}
	return out
}

func packageVersion(pkg string) string {
	out, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", pkg).Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// UpstreamTranscripts implements family.UpstreamTranscriber: pocketsphinx_batch's transcripts of
// the clips (TranscribeUpstream).
func (Family) UpstreamTranscripts(b *bundle.Bundle, clips []dataset.Materialized, workDir string) (any, error) {
	return TranscribeUpstream(b, clips, workDir)
}

// ExtractModel implements family.ModelExtractor: the model files and the decoder arguments
// pocketsphinx_batch needs with them.
func (Family) ExtractModel(b *bundle.Bundle, dir string) (map[string]any, error) {
	args, err := ExtractModel(b, dir)
	if err != nil {
		return nil, err
	}
	return map[string]any{"decoder_args": args}, nil
}
