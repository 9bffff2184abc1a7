package target

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
)

// Kind is what a target is. Code asks a Kind what it needs to know (is it the embedded target?
// does it live in a TRTMC checkout? how does its server refuse?) instead of comparing its name;
// the checkpoint flow keeps the steps that differ by kind behind one interface per kind.
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

// Kinds lists the known kinds.
func Kinds() []Kind { return []Kind{Reference, TRTMC} }

// UnmarshalYAML refuses a kind that is not known, naming the known ones.
func (k *Kind) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	for _, known := range Kinds() {
		if Kind(s) == known {
			*k = known
			return nil
		}
	}
	return fmt.Errorf("line %d: kind %q is not one of %v", n.Line, s, Kinds())
}

// Embedded says whether the target is this repository's own: its families' capabilities are
// read from the reference registry, and it can run on any machine.
func (k Kind) Embedded() bool { return k == Reference }

// InCheckout says whether the target lives in a TRTMC checkout: its manifests need
// QUAL_TRTMC_ROOT, its layout is checked, its commit recorded, and its placeholders (image,
// interpreter, GPU) come from QUAL_TRTMC_*.
func (k Kind) InCheckout() bool { return k == TRTMC }

// RecordsServedInfo says whether a row of the target that got past serving records what its
// server reported at /v1/serving/info (evidence Served): TRTMC's app names no bundle sha256, so
// that report, checked against the row, is the row's only word on what was served.
func (k Kind) RecordsServedInfo() bool { return k == TRTMC }

// Refusal is how the target's server documents refusing a request it cannot serve.
func (k Kind) Refusal() contract.Refusal { return contract.RefusalOf(string(k)) }

// RecordsOmitInputFields says whether the target's server records may lack the request's input
// identity (input_sha256) and audio length (audio_seconds): TRTMC's records carry neither, so a
// TRTMC request is identified by its payload alone; the reference server records both.
func (k Kind) RecordsOmitInputFields() bool { return k == TRTMC }

// ExportsTaskMetrics says whether the target's server exports, on its /metrics, the histogram
// trtmc_task_call_seconds and Go's runtime gauges in every run AIPerf scrapes (the reference
// server does: server/metrics.go). TRTMC's serving app exports neither, so its runs have no
// scrape to compare and none is required of them.
func (k Kind) ExportsTaskMetrics() bool { return k == Reference }

// RecordsCarrySpans says whether the target's server records each request's own start and end
// (start_unix_ns, end_unix_ns): the reference server does; TRTMC's app records
// {request_id, route, operation, backend, time, timing, observation} (app.py @1797a247
// execute), no span, so a check of a record's span against its timing or the run's order has
// nothing to read there.
func (k Kind) RecordsCarrySpans() bool { return k == Reference }
