package target

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

// Every step's limit is the target's, TRTMC's own where the target names none.
func TestLimitsDefaultToTRTMCsAndTakeTheTargets(t *testing.T) {
	tg := &Target{AIPerf: map[stage.Name]Load{"asr": {Warmup: 5, Requests: 50, Concurrency: 4, TimeoutSeconds: 300}}}
	l := tg.Limits("asr")
	for name, c := range map[string]struct{ got, want time.Duration }{
		"build (BUILD_TIMEOUT_S)":         {l.Build, 3 * time.Hour},
		"gate (TRTMC_E2E_TIMEOUT)":        {l.Gate, 12 * time.Hour},
		"serve (startup_timeout_s + 10m)": {l.Serve, 900*time.Second + 10*time.Minute},
		"aiperf (55 × 300 s / 4 + 10m)":   {l.AIPerf, 55*300*time.Second/4 + 10*time.Minute},
	} {
		if c.got != c.want {
			t.Errorf("%s: %s, want %s", name, c.got, c.want)
		}
	}
	tg.Timeouts, tg.Server.StartupSeconds, tg.BuildOutput = Timeouts{Gate: 60, Serve: 5, AIPerf: 7, Identity: 8}, 20, FamilyGate
	l = tg.Limits("asr")
	if l.Build != time.Minute || l.Gate != time.Minute || l.Serve != 25*time.Second || l.AIPerf != 7*time.Second || l.Identity != 8*time.Second {
		t.Errorf("target's own limits not taken: %+v", l)
	}
}

// The build and the gate stop at the target's limit, not the harness's.
func TestBuildByGateStopsAtTheTargetsGateTimeout(t *testing.T) {
	dir := t.TempDir()
	tg := &Target{Name: "t", Root: dir, BuildOutput: FamilyGate, Timeouts: Timeouts{Gate: 1},
		Gate: []string{"sh", "-c", "sleep 30"}, GateJUnit: filepath.Join(dir, "junit.xml"), GateCase: `^(?P<case>.+)$`}
	s, err := tg.NewStep(map[string]string{"work": dir, "testcase": "c"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The gate writes no JUnit: the error is the killed command's, not a report's.
	if _, _, err = s.Build(context.Background()); err == nil || !strings.Contains(err.Error(), "signal: killed") {
		t.Fatalf("a 30 s gate under a 1 s gate_seconds was not killed: %v", err)
	}
}

// The streaming twin is chunked as TRTMC's worker chunks each request: sample_rate * chunk_ms /
// 1000 samples of that request's own clip (benchmark_worker.cpp @08b8f334 run_transcribe), not of
// the testcase's clip, whose rate an AIPerf input need not share.
func TestStreamingChunkIsSizedFromTheRequestsOwnClip(t *testing.T) {
	tg := &Target{Name: "t", NativeRun: map[string][]string{"transcription_streaming": {"trtmc", "transcribe-streaming", "{bundle}",
		"--input", "{input}", "--chunk-samples", "{chunk_samples}"}}}
	for _, c := range []struct {
		testcaseChunk, rate string // the step's {chunk_samples} (the testcase clip's) and the request's clip rate
		chunkMS             string
		want                string
	}{
		{"2560", "16000", "160", "2560"},
		{"2560", "8000", "160", "1280"},
		{"53760", "16000", "1120", "17920"},
		{"17920", "44100", "1120", "49392"},
		{"2560", "", "160", "2560"}, // a request that names no rate keeps the testcase clip's chunk
	} {
		s := &Step{T: tg, Values: map[string]string{"chunk_ms": c.chunkMS, "chunk_samples": c.testcaseChunk}}
		req := map[string]string{"bundle": "/b", "input": "/data/x.wav"}
		if c.rate != "" {
			req["sample_rate"] = c.rate
		}
		args, err := s.NativeArgs(tg.NativeRun["transcription_streaming"], req)
		if err != nil || args[len(args)-1] != c.want {
			t.Errorf("rate %s, chunk_ms %s: %q %v, want --chunk-samples %s", c.rate, c.chunkMS, args, err, c.want)
		}
	}
}
