// Package family is the contract between the runtime and a model family: a family builds a
// bundle from its manifest, loads a bundle into a task.Model, and owns the correctness gate.
package family

import (
	"context"
	"flag"

	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Family is one model family.
type Family interface {
	Name() string
	// Capabilities are the Tasks every bundle of the family implements, declared by the family
	// (TRTMC: tasks + default task), whatever mode a manifest declares.
	Capabilities() []task.Name
	// Build packs everything the profile needs into bundle sections.
	Build(m manifest.Manifest) (bundle.Header, map[string][]byte, error)
	// Load turns a bundle into a model serving its Tasks.
	Load(b *bundle.Bundle, opts LoadOptions) (task.Model, error)
	// Gate runs the family's unchanged criteria for one testcase on exactly this bundle.
	Gate(ctx context.Context, b *bundle.Bundle, m manifest.Manifest, tc manifest.Testcase, env GateEnv) (GateResult, error)
}

// LoadOptions tune a loaded model.
type LoadOptions struct {
	Lanes int  // concurrent calls the model serves (decoder instances, worker slots)
	Host  Host // what the machine prepared for the family's tools
}

// GateEnv says where the gate finds the repository's golden data.
type GateEnv struct {
	Root    string // repository root: dataset and expected-output paths in manifests are relative to it
	WorkDir string // scratch space
	Cache   string // the machine's cache, where clips fetched by make deps are ("" = dataset.DefaultCache)
}

// Host is what `make deps` prepared on the machine a family runs on. The binaries take it as
// flags (--cache, --python): harness/config supplies them on the host, the server image's
// command line in its container. A family reads no environment for it.
type Host struct {
	Cache  string // the cache make deps fills (venvs, fetched clips); "" = dataset.DefaultCache
	Python string // interpreter of a family's Python workers; "" = the family's own default
}

// Args are h as the binaries' flags (HostFlags), for a command line that runs one of them.
func (h Host) Args() []string {
	var args []string
	if h.Cache != "" {
		args = append(args, "--cache", h.Cache)
	}
	if h.Python != "" {
		args = append(args, "--python", h.Python)
	}
	return args
}

// HostFlags adds --cache and --python to a binary's flags and returns the Host they fill.
func HostFlags(fs *flag.FlagSet) *Host {
	h := &Host{}
	fs.StringVar(&h.Cache, "cache", "", "the cache `make deps` fills: venvs and fetched clips (default ~/.cache/trtmc-qual)")
	fs.StringVar(&h.Python, "python", "", "interpreter of the families' Python workers (default: the family's, e.g. the image's venv, then the cache's)")
	return h
}

// HostUser is a family that runs tools `make deps` prepared (a venv, a fetched model): the
// binaries bind it to their Host after looking it up (OnHost).
type HostUser interface {
	Family
	OnHost(h Host) Family
}

// OnHost returns f bound to h when f uses the host's tools, else f unchanged.
func OnHost(f Family, h Host) Family {
	if u, ok := f.(HostUser); ok {
		return u.OnHost(h)
	}
	return f
}

// GateResult is a gate's verdict with every figure it computed.
type GateResult struct {
	Family     string             `json:"family"`
	Profile    string             `json:"profile"`
	Testcase   string             `json:"testcase"`
	BundleSHA  string             `json:"bundle_sha256"`
	Thresholds map[string]float64 `json:"thresholds"`
	Settings   map[string]string  `json:"settings,omitempty"` // what the family ran with, e.g. the CPU kernels it selected
	Figures    map[string]float64 `json:"figures"`
	Passed     bool               `json:"passed"`
	Failures   []string           `json:"failures,omitempty"`
	Items      []GateItem         `json:"items"`
}

// GateItem is one input's outcome.
type GateItem struct {
	ID       string  `json:"id"`
	Output   string  `json:"output"`
	Expected string  `json:"expected"` // what Output is compared with: the upstream transcript, answer or image path
	Gold     string  `json:"gold,omitempty"`
	Distance float64 `json:"distance"`
	Passed   bool    `json:"passed"`
	Detail   string  `json:"detail,omitempty"`
}
