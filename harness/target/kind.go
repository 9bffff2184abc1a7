package target

import (
	"fmt"
	"net/http"

	"go.yaml.in/yaml/v3"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
)

// Kind is the name of what a target is, as its YAML file and the evidence spell it. Code never
// compares it: it asks the kind's Traits what differs.
type Kind string

// The kinds of target.
const (
	// Reference is the embedded reference target: families, binaries and server of this
	// repository, built and run on any machine.
	Reference Kind = "reference"
	// TRTMC is a TensorRT-Model-Connect checkout: manifests, commands, thresholds and image
	// resolve in the checkout (QUAL_TRTMC_ROOT), through TRTMC's own tooling.
	TRTMC Kind = "trtmc"
)

// Traits is everything that differs between kinds of target. Each kind has one implementation,
// listed in registered; adding a kind is one implementation and one line there, and the
// compiler names every trait it must answer.
type Traits interface {
	// Kind is the name the traits are registered under.
	Kind() Kind
	// Embedded says whether the target is this repository's own: its families' capabilities are
	// read from the reference registry, and it can run on any machine.
	Embedded() bool
	// InCheckout says whether the target lives in a TRTMC checkout: its manifests need
	// QUAL_TRTMC_ROOT, its layout is checked, its commit recorded, and its placeholders (image,
	// interpreter, GPU) come from QUAL_TRTMC_*.
	InCheckout() bool
	// RecordsServedInfo says whether a row that got past serving records what its server
	// reported at /v1/serving/info (evidence Served), that report being the row's word on what
	// was served.
	RecordsServedInfo() bool
	// Refusal is how the target's server documents refusing a request it cannot serve.
	Refusal() contract.Refusal
	// RecordsOmitInputFields says whether the server's records may lack the request's input
	// identity (input_sha256) and audio length (audio_seconds), a request then being identified
	// by its payload alone.
	RecordsOmitInputFields() bool
	// ExportsTaskMetrics says whether the server exports, on its /metrics, the histogram
	// trtmc_task_call_seconds and Go's runtime gauges in every run AIPerf scrapes, so that a run
	// without that scrape is missing a copy of its figures.
	ExportsTaskMetrics() bool
	// RecordsCarrySpans says whether the server records each request's own start and end
	// (start_unix_ns, end_unix_ns), which checks of a record's span against its timing or the
	// run's order read.
	RecordsCarrySpans() bool
}

// registered is the registry of kinds: one Traits per kind, in the order Kinds lists them.
func registered() []Traits { return []Traits{reference{}, trtmc{}} }

// Kinds lists the known kinds.
func Kinds() []Kind {
	var out []Kind
	for _, t := range registered() {
		out = append(out, t.Kind())
	}
	return out
}

// Traits are the kind's traits; a kind no registry entry has (only a recorded one can be: Read
// refuses it) gets unregistered traits, which claim nothing.
func (k Kind) Traits() Traits {
	for _, t := range registered() {
		if t.Kind() == k {
			return t
		}
	}
	return unregistered{k}
}

// TraitsOf are the traits of a kind as a run or stage records it (evidence keeps it as a string).
func TraitsOf(recorded string) Traits { return Kind(recorded).Traits() }

// Registered says whether a recorded kind is one the registry has traits for.
func Registered(recorded string) bool {
	_, unknown := TraitsOf(recorded).(unregistered)
	return !unknown
}

// Traits are what differs by the target's kind.
func (t *Target) Traits() Traits { return t.Kind.Traits() }

// UnmarshalYAML refuses a kind that is not known, naming the known ones.
func (k *Kind) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	if !Registered(s) {
		return fmt.Errorf("line %d: kind %q is not one of %v", n.Line, s, Kinds())
	}
	*k = Kind(s)
	return nil
}

// reference is the embedded reference target: this repository's families, CLI and server
// (trtmc-server), which records every request with its input identity and span and exports its
// task histogram and runtime gauges (server/metrics.go).
type reference struct{}

func (reference) Kind() Kind                   { return Reference }
func (reference) Embedded() bool               { return true }
func (reference) InCheckout() bool             { return false }
func (reference) RecordsServedInfo() bool      { return false }
func (reference) RecordsOmitInputFields() bool { return false }
func (reference) ExportsTaskMetrics() bool     { return true }
func (reference) RecordsCarrySpans() bool      { return true }

// Refusal: the reference server (trtmc-server, server/errors.go) refuses an input_audio part to
// a model without audio_text_to_text with 400 unsupported_capability and records it, like every
// request.
func (reference) Refusal() contract.Refusal {
	return contract.Refusal{Status: http.StatusBadRequest, Code: contract.CodeUnsupportedCapability, Mentions: "audio_text_to_text", Recorded: true,
		Source: "trtmc-server: a missing capability is 400 unsupported_capability, and every request leaves one record"}
}

// trtmc is a TensorRT-Model-Connect checkout, served by TRTMC's perf-serving app.
type trtmc struct{}

func (trtmc) Kind() Kind       { return TRTMC }
func (trtmc) Embedded() bool   { return false }
func (trtmc) InCheckout() bool { return true }

// RecordsServedInfo: TRTMC's app names no bundle sha256, so its /v1/serving/info report,
// checked against the row, is the row's only word on what was served.
func (trtmc) RecordsServedInfo() bool { return true }

// RecordsOmitInputFields: TRTMC's records carry neither input_sha256 nor audio_seconds, so a
// TRTMC request is identified by its payload alone.
func (trtmc) RecordsOmitInputFields() bool { return true }

// ExportsTaskMetrics: TRTMC's serving app exports neither trtmc_task_call_seconds nor Go's
// runtime gauges, so its runs have no scrape to compare and none is required of them.
func (trtmc) ExportsTaskMetrics() bool { return false }

// RecordsCarrySpans: TRTMC's app records {request_id, route, operation, backend, time, timing,
// observation} (app.py @1797a247 execute), no span, so a check of a record's span against its
// timing or the run's order has nothing to read there.
func (trtmc) RecordsCarrySpans() bool { return false }

// Refusal: TRTMC's serving app (apps/perf_serving/trtmc_perf_serving/app.py @1797a247 and
// @c94a23d3, guarded()) routes /v1/chat/completions only to the "generate" operation: a
// transcription profile (operation "transcribe") answers 404 route_not_served, "<route> is not
// served for operation 'transcribe'", before anything runs, and the app writes records only from
// execute(), for executed operations — so the refusal leaves no record, and a record under the
// probe's id would mean the audio question was executed.
func (trtmc) Refusal() contract.Refusal {
	return contract.Refusal{Status: http.StatusNotFound, Code: contract.CodeRouteNotServed, Mentions: "is not served for operation", Recorded: false,
		Source: "TRTMC apps/perf_serving/trtmc_perf_serving/app.py guarded()/execute(): unserved routes answer 404 route_not_served and leave no record"}
}

// unregistered are the traits of a kind recorded in evidence that no implementation has: it
// claims nothing of a kind, so no check relies on a trait it was never given; verify reports the
// name (targetkind.go).
type unregistered struct{ kind Kind }

func (u unregistered) Kind() Kind                 { return u.kind }
func (unregistered) Embedded() bool               { return false }
func (unregistered) InCheckout() bool             { return false }
func (unregistered) RecordsServedInfo() bool      { return false }
func (unregistered) RecordsOmitInputFields() bool { return false }
func (unregistered) ExportsTaskMetrics() bool     { return false }
func (unregistered) RecordsCarrySpans() bool      { return false }

// Refusal of an unregistered kind is the reference server's, the stricter rule (a record of the
// refusal is required).
func (unregistered) Refusal() contract.Refusal { return reference{}.Refusal() }
