package workload

import (
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

// What only some stages do is an optional interface of the Workload, found by type assertion
// (as database/sql finds a driver's optional capabilities), so that the suites, the CLI and the
// checkpoint flow never ask which stage they are running.

// Blockable is a workload whose capability a target need not implement (audio question
// answering: no TRTMC family implements audio_text_to_text yet). Its suite audits every profile
// of the target for the capability and, when none has it, reports the stage blocked with the
// audit instead of failing it; `qual inventory --check` does not require a counted checkpoint.
type Blockable interface {
	Workload
	// MayBeBlocked says why a target may have no profile with the capability.
	MayBeBlocked() string
}

// RefusalProber is a workload whose serving path must refuse its request to a checkpoint that
// lacks the capability, as the target documents (target.Traits.Refusal). The probe serves a
// counted checkpoint of ProbeStage and sends it the one request ProbeRequest builds.
type RefusalProber interface {
	Workload
	// ProbeStage is the stage whose counted checkpoint is served for the probe.
	ProbeStage() stage.Name
	// ProbeRequest is the request body sent to model and the suffix of its request id, with
	// any file it needs written under dir (root is the repository root).
	ProbeRequest(root, model, dir string) (id string, body []byte, err error)
}

// MayBeBlocked is w's reason to be blocked, "" when a target must implement its capability.
func MayBeBlocked(w Workload) string {
	if b, ok := w.(Blockable); ok {
		return b.MayBeBlocked()
	}
	return ""
}

// ImageWriter is a workload whose native run writes an image file (text-to-image): a target whose
// native command prints the file's path (TRTMC's) has the file copied out and read here, where a
// transcript is read from the printout itself.
type ImageWriter interface {
	Workload
	// ImageOutput is the comparable output of a PNG file a native run wrote: its pixel sha256,
	// as HTTPOutput hashes the served image.
	ImageOutput(png []byte) (string, error)
}

// CacheReader is a workload whose pinned inputs may be files `make deps` fetched into the
// machine's cache (dataset.CacheSource, e.g. the LibriSpeech clips): the checkpoint gives it
// the cache harness/config resolved. Without one it reads the default cache.
type CacheReader interface {
	Workload
	// WithCache returns the workload reading fetched inputs from dir.
	WithCache(dir string) Workload
}

// WithCache is w reading its fetched inputs from dir when it reads any, else w unchanged.
func WithCache(w Workload, dir string) Workload {
	if c, ok := w.(CacheReader); ok {
		return c.WithCache(dir)
	}
	return w
}

// ClipTimed is a workload whose figures need each request's clip length (ASR: audio seconds per
// second, RTF, RTFx). A server record states it (ours: audio_seconds; TRTMC's:
// observation.input_audio_seconds); where one does not, ClipSeconds reads it from the clip the
// client uploaded.
type ClipTimed interface {
	Workload
	ClipSeconds(p join.Pair) (float64, error)
}
