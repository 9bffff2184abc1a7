// Package labels is the one registry of Ginkgo labels the suites use:
// `ginkgo --label-filter=asr ./suites/...` qualifies stage 3 alone.
package labels

// Stage and resource labels.
const (
	ASR        = "asr"        // stage 3: recorded-clip transcription
	T2I        = "t2i"        // stage 6: text-to-image
	AudioQA    = "audioqa"    // stage 9: audio question answering
	Containers = "containers" // starts Docker containers
	GPU        = "gpu"        // needs GPU passthrough
	Slow       = "slow"       // the full request counts of a real qualification
)
