package inventory

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Declaration is what a family's own files say it implements, read as text: importing
// support.py needs TRTMC's builder package and MODEL.toml is only a list of strategies, so
// neither needs a GPU or TRTMC installed.
type Declaration struct {
	Tasks    []string    // support.py tasks=(...) or MODEL.toml runtime_strategies
	Default  string      // support.py default_task
	Native   []task.Name // the Tasks above mapped to native Task names
	Controls []string    // cli.json options of the family's run commands, when declared
	Source   string      // the file, relative to the checkout
}

// declarations reads and caches per checkout; one is made per inventory run (no package state).
type declarations struct {
	byDir      map[string]*Declaration      // root|layout|dir -> declaration (nil: none)
	strategies map[string]map[string]string // root -> runtime strategy -> MODEL.toml path
}

func newDeclarations() *declarations {
	return &declarations{byDir: map[string]*Declaration{}, strategies: map[string]map[string]string{}}
}

var (
	// Regexps are immutable after compilation; they are constants in all but syntax.
	reTasks      = regexp.MustCompile(`(?s)\btasks\s*=\s*[\(\[]([^\)\]]*)[\)\]]`)
	reDefault    = regexp.MustCompile(`\bdefault_task\s*=\s*["']([^"']+)["']`)
	reStrategies = regexp.MustCompile(`(?m)^runtime_strategies\s*=\s*\[([^\]]*)\]`)
	reQuoted     = regexp.MustCompile(`["']([^"']+)["']`)
)

// of returns the family declaration for a profile, or nil when its checkout declares none.
func (d *declarations) of(p Profile) *Declaration {
	if p.Root == "" {
		return nil
	}
	key := p.Root + "|" + p.Layout + "|" + p.FamilyDir + "|" + p.RuntimeStrategy
	if decl, ok := d.byDir[key]; ok {
		return decl
	}
	var decl *Declaration
	switch p.Layout {
	case LayoutFamilies:
		decl = readSupport(p.Root, filepath.Join("families", p.FamilyDir, "support.py"))
		if decl != nil {
			decl.Controls = readCLIControls(filepath.Join(p.Root, "families", p.FamilyDir, "cli.json"))
		}
	case LayoutE2E:
		decl = d.modelToml(p)
	}
	d.byDir[key] = decl
	return decl
}

func readSupport(root, rel string) *Declaration {
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return nil
	}
	m := reTasks.FindSubmatch(data)
	if m == nil {
		return nil
	}
	decl := &Declaration{Source: rel}
	for _, q := range reQuoted.FindAllSubmatch(m[1], -1) {
		decl.Tasks = append(decl.Tasks, string(q[1]))
	}
	if dm := reDefault.FindSubmatch(data); dm != nil {
		decl.Default = string(dm[1])
	}
	decl.Native = nativeAll(decl.Tasks)
	return decl
}

// modelToml finds the older layout's src/runtime/models/<f>/MODEL.toml: by family name, else
// the one whose runtime_strategies list the manifest's runtime_strategy (family names and
// runtime directories differ, e.g. wan_t2v -> wan).
func (d *declarations) modelToml(p Profile) *Declaration {
	rel := filepath.Join("src", "runtime", "models", p.Family, "MODEL.toml")
	if _, err := os.Stat(filepath.Join(p.Root, rel)); err != nil {
		rel = d.strategyIndex(p.Root)[p.RuntimeStrategy]
	}
	if rel == "" {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(p.Root, rel))
	if err != nil {
		return nil
	}
	m := reStrategies.FindSubmatch(data)
	if m == nil {
		return nil
	}
	decl := &Declaration{Source: rel}
	for _, q := range reQuoted.FindAllSubmatch(m[1], -1) {
		decl.Tasks = append(decl.Tasks, string(q[1]))
	}
	decl.Native = nativeAll(decl.Tasks)
	return decl
}

func (d *declarations) strategyIndex(root string) map[string]string {
	if idx, ok := d.strategies[root]; ok {
		return idx
	}
	idx := map[string]string{}
	files, _ := filepath.Glob(filepath.Join(root, "src", "runtime", "models", "*", "MODEL.toml"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if m := reStrategies.FindSubmatch(data); m != nil {
			rel, _ := filepath.Rel(root, f)
			for _, q := range reQuoted.FindAllSubmatch(m[1], -1) {
				idx[string(q[1])] = rel
			}
		}
	}
	d.strategies[root] = idx
	return idx
}

// readCLIControls lists the options of a family's run commands (every command but build),
// leaving out plumbing (bundle, output and runtime paths).
func readCLIControls(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var cli struct {
		Commands []struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name  string   `json:"name"`
				Flags []string `json:"flags"`
			} `json:"arguments"`
		} `json:"commands"`
	}
	if json.Unmarshal(data, &cli) != nil {
		return nil
	}
	plumbing := map[string]bool{"output": true, "runtime_root": true, "runtime_cache": true, "bundle": true, "cuda_graphs": true}
	seen := map[string]bool{}
	var out []string
	for _, c := range cli.Commands {
		if c.Name == "build" {
			continue
		}
		for _, a := range c.Arguments {
			if len(a.Flags) > 0 && !plumbing[a.Name] && !seen[a.Name] {
				seen[a.Name] = true
				out = append(out, a.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// nativeOf maps a task string, a support.py task or a MODEL.toml runtime strategy to the native
// Task it asks for. Streaming transcription maps to speech_transcription: TRTMC's streaming
// speech families implement whole-clip transcription too (owner's rule for stage 3).
func nativeOf(s string) task.Name {
	l := strings.ToLower(s)
	switch l {
	case "transcription", "speech_to_text", "speech_transcription", "asr", "transcription_streaming",
		"streaming_speech_transcription", "batch_speech_transcription":
		return task.SpeechTranscription
	case "image_generation", "image_generation_batch", "diffusion_media_generation", "text_to_image", "batch_text_to_image":
		return task.TextToImage
	case "audio_text_to_text", "audio_question_answering":
		return task.AudioTextToText
	}
	switch {
	case strings.Contains(l, "speech_to_text"): // MODEL.toml: whisper_speech_to_text, ..._speech_to_text_rnnt
		return task.SpeechTranscription
	case strings.HasPrefix(l, "diffusion_") && l != "diffusion_text_generation": // MODEL.toml: diffusion_flux, ...
		return task.TextToImage
	}
	return ""
}

func nativeAll(names []string) []task.Name {
	var out []task.Name
	seen := map[task.Name]bool{}
	for _, n := range names {
		if t := nativeOf(n); t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// imageRelated are task strings that share the image workload's neighbourhood but are not
// text-to-image: they are listed in stage 6 as excluded, with the reason.
func imageRelated(taskString string) string {
	switch strings.ToLower(taskString) {
	case "image_edit":
		return "image editing (task image_edit), not text-to-image"
	case "text_to_audio_video":
		return "video generator (task text_to_audio_video), not text-to-image"
	case "world_model_generation":
		return "video generator (task world_model_generation), not text-to-image"
	}
	return ""
}
