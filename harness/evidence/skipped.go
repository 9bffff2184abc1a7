package evidence

import (
	"fmt"
	"strings"
)

// InputLimits are the declared limits a row's pinned inputs were admitted under (stage 3: the
// family's strictest maximum clip duration and the profile's sample rate, each with where the
// family's manifests, testcases or thresholds declare it). Zero means not declared.
type InputLimits struct {
	MaxClipSeconds   float64 `json:"max_clip_seconds,omitempty"`
	MaxClipSource    string  `json:"max_clip_source,omitempty"`
	SampleRate       int     `json:"sample_rate,omitempty"`
	SampleRateSource string  `json:"sample_rate_source,omitempty"`
}

// Violation says which recorded limit a clip of the given length and rate breaks ("" when none):
// the one rule the admission claim (harness/claim) skips by, in the suite and in qual verify.
func (l InputLimits) Violation(family string, seconds float64, rate int) string {
	var why []string
	if l.MaxClipSeconds > 0 && seconds > l.MaxClipSeconds {
		why = append(why, fmt.Sprintf("clip of %.2f s exceeds family %s's maximum clip duration %g s (%s)", seconds, family, l.MaxClipSeconds, l.MaxClipSource))
	}
	if l.SampleRate > 0 && rate != l.SampleRate {
		why = append(why, fmt.Sprintf("clip sample rate %d Hz is not the declared %d Hz (%s)", rate, l.SampleRate, l.SampleRateSource))
	}
	return strings.Join(why, "; ")
}

// SkippedInput is a pinned input the row's family cannot take: it is sent neither to the native
// Task, nor over HTTP, nor by AIPerf, and the reason names the limit and where it is declared.
type SkippedInput struct {
	Clip       string  `json:"clip"`
	Seconds    float64 `json:"seconds"`
	SampleRate int     `json:"sample_rate"`
	Reason     string  `json:"reason"`
}
