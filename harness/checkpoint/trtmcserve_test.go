package checkpoint

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// TRTMC's /v1/serving/info as app.py @1797a247 info() answers it (backend identity from
// backends/trtmc.py @7b798a32, cli.py info, max_queue, base_request): no models[], no sha256.
func trtmcInfo(t *testing.T) contract.TRTMCServingInfo {
	t.Helper()
	raw, err := os.ReadFile("testdata/trtmc-serving-info.json")
	if err != nil {
		t.Fatal(err)
	}
	var info contract.TRTMCServingInfo
	if err := json.Unmarshal(raw, &info); err != nil {
		t.Fatal(err)
	}
	return info
}

// Every member the row is checked on fails the check when it differs, and only then.
func TestTRTMCServingInfoIsCheckedAgainstTheRow(t *testing.T) {
	want := contract.TRTMCServingInfo{Bundle: "/bundles/whisper-tiny-fp16.bundle", Task: "transcription", Family: "whisper",
		Profile: "whisper-tiny-fp16", Testcase: "whisper-tiny-fp16-asr"}
	if err := CheckTRTMCServed(trtmcInfo(t), want); err != nil {
		t.Fatalf("TRTMC's own answer: %v", err)
	}
	for name, spoil := range map[string]func(*contract.TRTMCServingInfo){
		"bundle":       func(i *contract.TRTMCServingInfo) { i.Bundle = "/bundles/other.bundle" },
		"task":         func(i *contract.TRTMCServingInfo) { i.Task = "speech_transcription" },
		"family":       func(i *contract.TRTMCServingInfo) { i.Family = "canary" },
		"profile":      func(i *contract.TRTMCServingInfo) { i.Profile = "whisper-tiny-fp16-tp2" },
		"testcase":     func(i *contract.TRTMCServingInfo) { i.Testcase = "whisper-tiny-fp16-asr-probe01" },
		"timing_scope": func(i *contract.TRTMCServingInfo) { i.TimingScope = "worker_round_trip" },
		"load_ms":      func(i *contract.TRTMCServingInfo) { i.LoadMS = nil },
		"base_request": func(i *contract.TRTMCServingInfo) { i.BaseRequest = nil },
	} {
		info := trtmcInfo(t)
		spoil(&info)
		if err := CheckTRTMCServed(info, want); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s differs: %v", name, err)
		}
	}
}

// Both sides run one configuration, derived from the served base request: the language (the
// base request's "", so the family's, sent explicitly over HTTP and natively), the token limit
// (224, the benchmark's default, where the testcase declares none), and for images only the
// settings the worker treats as set.
func TestOneConfigurationFromTheServedBaseRequest(t *testing.T) {
	s := ServedOf(trtmcInfo(t), map[string]any{})
	if s.HTTP["language"] != "en" || s.Native["language"] != "en" || s.Native["max_tokens"] != "224" || s.LoadMS != 1834.5 ||
		s.TimingScope != "public_task_call_wall" {
		t.Errorf("transcription: %+v", s)
	}
	if s := ServedOf(trtmcInfo(t), map[string]any{"language": "de"}); s.HTTP["language"] != "de" || s.Native["language"] != "de" {
		t.Errorf("the family's language: %+v", s)
	}
	img := contract.TRTMCServingInfo{BaseRequest: map[string]any{"prompt": "a cat", "negative_prompt": "", "seed": 42.0, "num_steps": -1.0,
		"guidance_scale": 7.5, "cfg_scale": -1.0, "height": 256.0, "width": 256.0, "batch_size": 1.0}}
	s = ServedOf(img, nil)
	if len(s.HTTP) != 0 || s.Native["guidance"] != "7.5" || s.Native["seed"] != "42" || s.Native["height"] != "256" ||
		s.Native["steps"] != "" || s.Native["cfg_scale"] != "" || s.Native["negative_prompt"] != "" {
		t.Errorf("image: %+v", s)
	}
}

// A figure the stage advertises that the summary lacks is named, with what it is derived from.
func TestAdvertisedFiguresMustBeComputed(t *testing.T) {
	sum := evidence.Timing{Requests: 2, Figures: []evidence.Figure{{Name: "benchmark_duration", Value: 3}, {Name: "rtf", Value: 0.2}}}
	if got := missingFigures([]string{"audio_seconds_per_second", "rtf", "rtfx"}, sum); strings.Join(got, ",") != "audio_seconds_per_second,rtfx" {
		t.Errorf("missing %v", got)
	}
	if got := missingFigures([]string{"rtf"}, sum); len(got) != 0 {
		t.Errorf("missing %v", got)
	}
}

func TestSHA256FieldOfSha256sum(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	if got := sha256Field("\x01\x00\x00\x00\x00\x00\x00\x52" + sum + "  /bundles/x.bundle\n"); got != sum {
		t.Errorf("got %q", got)
	}
	if got := sha256Field(sum + "  /bundles/x.bundle\n"); got != sum {
		t.Errorf("got %q", got)
	}
	if got := sha256Field("sha256sum: /bundles/x.bundle: No such file or directory\n"); got != "" {
		t.Errorf("got %q", got)
	}
}

// The served configuration's form fields join each AIPerf row's own extra inputs, never replace them.
func TestServedHTTPKeepsTheRowsOwnExtra(t *testing.T) {
	c := &Checkpoint{}
	c.Result.Served = &evidence.Served{HTTP: map[string]string{"language": "en"}}
	rows := []map[string]any{{"session_id": "a", "extra": map[string]any{"seed": 7}}, {"session_id": "b"}}
	c.servedHTTP(rows)
	if e, _ := rows[0]["extra"].(map[string]any); e["seed"] != 7 || e["language"] != "en" {
		t.Errorf("row with its own extra: %v", rows[0])
	}
	if e, _ := rows[1]["extra"].(map[string]any); e["language"] != "en" {
		t.Errorf("row without: %v", rows[1])
	}
}
