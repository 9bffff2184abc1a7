// Package stage is the one vocabulary of the qualification plan's stages: each stage's name
// (also its Ginkgo label and its folder in a run directory), its number in the plan, its title
// and the native Task capability a checkpoint must implement to be qualified there. Everything
// else — the workload registry, the inventory, the suites, the labels, the CLI — imports it
// instead of spelling a stage; what a stage does differently lives in harness/workload.
//
// Adding a stage is one line in All and one Workload in harness/workload.
package stage

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Name is a stage's name: asr, t2i, audioqa.
type Name string

// The stages.
const (
	ASR     Name = "asr"
	T2I     Name = "t2i"
	AudioQA Name = "audioqa"
)

// Stage is one stage's vocabulary.
type Stage struct {
	Name       Name
	Number     int    // its number in the qualification plan
	Title      string // one line
	Capability task.Name
}

// All is the registry: every stage, in plan order.
func All() []Stage {
	return []Stage{
		{Name: ASR, Number: 3, Title: "recorded-clip transcription", Capability: task.SpeechTranscription},
		{Name: T2I, Number: 6, Title: "text-to-image", Capability: task.TextToImage},
		{Name: AudioQA, Number: 9, Title: "audio question answering", Capability: task.AudioTextToText},
	}
}

// Names lists the stage names in plan order.
func Names() []Name {
	var out []Name
	for _, s := range All() {
		out = append(out, s.Name)
	}
	return out
}

// Get returns a stage by name; an unknown name is an error listing the known ones.
func Get(name string) (Stage, error) {
	for _, s := range All() {
		if string(s.Name) == name {
			return s, nil
		}
	}
	names := make([]string, 0, len(All()))
	for _, n := range Names() {
		names = append(names, string(n))
	}
	sort.Strings(names)
	return Stage{}, fmt.Errorf("unknown stage %q (stages: %s)", name, strings.Join(names, ", "))
}

// info is n's entry (the zero Stage for a name that is not registered).
func (n Name) info() Stage {
	s, _ := Get(string(n))
	return s
}

// Number is the stage's number in the plan (0 for an unknown name).
func (n Name) Number() int { return n.info().Number }

// Title is the stage's one-line description.
func (n Name) Title() string { return n.info().Title }

// Capability is the native Task a checkpoint must implement to be qualified in the stage.
func (n Name) Capability() task.Name { return n.info().Capability }

// Dir is the stage's folder in the run directory runDir, where its rows' files and stage.json are.
func (n Name) Dir(runDir string) string { return filepath.Join(runDir, string(n)) }
