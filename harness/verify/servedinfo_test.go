package verify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// A stored TRTMC row's served info is re-checked: each way it can disagree with the row, with the
// timing claim or with the native runs recorded is reported.
func TestServedInfoIsRecheckedAgainstTheRow(t *testing.T) {
	good := func() evidence.Result {
		return evidence.Result{Profile: "whisper-tiny-fp16", Status: evidence.StatusQualified,
			Bundle: evidence.Bundle{Header: map[string]any{"task": "transcription"}}, Served: &evidence.Served{Bundle: "/bundles/w.bundle", Profile: "whisper-tiny-fp16",
				Testcase: "whisper-tiny-fp16-asr", Task: "transcription", TimingScope: "public_task_call_wall", LoadMS: 1800,
				BaseRequest: map[string]any{"audio_path": "/a.wav", "max_new_tokens": 224.0, "language": "", "streaming": false},
				HTTP:        map[string]string{"language": "en"}, Native: map[string]string{"language": "en", "max_tokens": "224"}},
			Commands: [][]string{{"(in server container)", "trtmc", "transcribe", "/bundles/w.bundle", "--max-output-tokens", "224", "--source-language", "en"}}}
	}
	problems := func(r evidence.Result) []string {
		var out []string
		checkServedInfo("asr/whisper-tiny-fp16", target.TRTMC.Traits(), r, func(_, format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) })
		return out
	}
	if got := problems(good()); len(got) != 0 {
		t.Fatalf("a consistent row: %v", got)
	}
	for name, spoil := range map[string]func(*evidence.Result){
		"profile":          func(r *evidence.Result) { r.Served.Profile = "whisper-large-v3-turbo" },
		"task":             func(r *evidence.Result) { r.Served.Task = "speech_transcription" },
		"served":           func(r *evidence.Result) { r.Served = nil },
		"timing_scope":     func(r *evidence.Result) { r.Served.TimingScope = "" },
		"base request":     func(r *evidence.Result) { r.Served.BaseRequest = nil },
		"language differs": func(r *evidence.Result) { r.Served.HTTP["language"] = "de" },
		"max_tokens":       func(r *evidence.Result) { r.Served.Native["max_tokens"] = "50" },
		"--source-language": func(r *evidence.Result) {
			r.Commands[0] = r.Commands[0][:6]
		},
	} {
		r := good()
		spoil(&r)
		if got := problems(r); len(got) == 0 {
			t.Errorf("%s: not reported", name)
		} else if !strings.Contains(strings.Join(got, ";"), strings.Fields(name)[0]) && name != "base request" && name != "language differs" {
			t.Errorf("%s: reported as %v", name, got)
		}
	}
}

// Served info is a TRTMC-kind row's: a reference row, which reports models[] with the bundle's
// sha256 instead, or a TRTMC row that never got to serve, is not asked for it.
func TestServedInfoIsAskedOnlyOfQualifiedTRTMCRows(t *testing.T) {
	for _, c := range []struct {
		kind   target.Kind
		status evidence.Status
	}{{target.Reference, evidence.StatusQualified}, {target.TRTMC, evidence.StatusFailed}} {
		var got []string
		checkServedInfo("asr/x", c.kind.Traits(), evidence.Result{Status: c.status}, func(_, format string, args ...any) { got = append(got, fmt.Sprintf(format, args...)) })
		if len(got) != 0 {
			t.Errorf("%s %s: %v", c.kind, c.status, got)
		}
	}
}
