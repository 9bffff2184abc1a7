package family

import (
	"github.com/trtmc-qual/trtmc-qual/harness/metrics"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Descriptor is what code that must stay free of cgo (the offline verifier, the harness) knows
// of a family: its wire identity and the rules by which its recorded results are re-checked.
// Each family's descriptor lives in a cgo-free package of its own folder
// (native/families/<name>/descriptor), registered in native/families/descriptors apart from the
// runtime (native/registry), so code looks a family up instead of naming it.
type Descriptor struct {
	// Name is the family's wire identity: the bundle header's family, a gate result's family.
	Name string
	// Capabilities are the public Tasks the family implements (its runtime's Capabilities
	// answers with these), so an inventory can be read without linking the runtime.
	Capabilities []task.Name
	// UpstreamNormalizer is how the family compares its transcripts with the transcripts its
	// upstream tool makes (the gate's expected outputs); nil when it has none.
	UpstreamNormalizer *metrics.Normalizer
	// QAGateIsTemplatedReader says the family's audio-QA gate answers with the pure-Go templated
	// reader (native/families/sphinxqa/reader), which the verifier can re-run.
	QAGateIsTemplatedReader bool
	// ImageDefaults reads, from a stored bundle, the request defaults the family's server
	// completes an image request with; nil for a family that generates no images.
	ImageDefaults func(b *bundle.Bundle) (task.ImageSpec, error)
}

// UpstreamTranscriber is a family whose gate's expected outputs are transcripts its upstream
// tool makes of the pinned clips (trtmc-native upstream).
type UpstreamTranscriber interface {
	Family
	// UpstreamTranscripts runs the upstream tool on clips (materialized WAVs) with the bundle's
	// model and returns the upstream transcripts file's content.
	UpstreamTranscripts(b *bundle.Bundle, clips []dataset.Materialized, workDir string) (any, error)
}

// ModelExtractor is a family whose bundle holds model files its upstream tool can run
// (trtmc-native extract).
type ModelExtractor interface {
	Family
	// ExtractModel writes the model files into dir and returns what the upstream tool needs
	// besides them, by name (sphinx: decoder_args; whisper: settings).
	ExtractModel(b *bundle.Bundle, dir string) (map[string]any, error)
}
