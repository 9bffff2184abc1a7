package verify

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
)

// metric is one profile_export.jsonl line as AIPerf 0.13.0 writes it.
func metric(t *testing.T, id, phase string, startNS, endNS int64, latencyMS float64) aiperfexport.MetricRecord {
	t.Helper()
	line := fmt.Sprintf(`{"metadata":{"x_request_id":%q,"benchmark_phase":%q,"request_start_ns":%d,"request_end_ns":%d},"metrics":{"request_latency":{"value":%v,"unit":"ms"}}}`,
		id, phase, startNS, endNS, latencyMS)
	var m aiperfexport.MetricRecord
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func servedRow() evidence.Result {
	return evidence.Result{Profile: "p", Status: evidence.StatusQualified, Records: "asr/p/server-records.jsonl",
		AIPerf: &evidence.AIPerfRun{Version: "0.13.0", Dir: "asr/p/aiperf", Requests: 2, Concurrency: 1, Command: []string{"aiperf", "profile", "--concurrency", "1"}},
		Join:   &evidence.Join{}, Timing: nil, Bundle: evidence.Bundle{SHA256Served: "aa"}}
}

// TestLatencyIsItsOwnWindow halves one request_latency, leaving its start and end.
func TestLatencyIsItsOwnWindow(t *testing.T) {
	r := servedRow()
	run := aiperfexport.Exports{Dir: "/x/asr/p/aiperf", Metrics: []aiperfexport.MetricRecord{
		metric(t, "a", "profiling", 1e9, 1e9+200e6, 200), metric(t, "b", "profiling", 2e9, 2e9+300e6, 150)}}
	report, got := collect()
	checkLatencyWindows("asr/p", r, []aiperfexport.Exports{run}, report)
	if len(*got) != 1 || !containsAll(*got, "asr/p/aiperf/profile_export.jsonl", "request b", "request_latency 150.000 ms", "300.000 ms") {
		t.Fatalf("%v", *got)
	}
}

// TestSummaryIsThePerRequestExports scales every per-request time, leaving AIPerf's summary.
func TestSummaryIsThePerRequestExports(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "profile_export_aiperf.json"), []byte(`{"aiperf_version":"0.13.0","request_latency":{"unit":"ms","avg":250,"min":200,"max":300}}`), 0o644)
	r := servedRow()
	honest := aiperfexport.Exports{Dir: dir, Metrics: []aiperfexport.MetricRecord{
		metric(t, "w", "warmup", 0, 9e9, 9000), metric(t, "a", "profiling", 1e9, 1e9+200e6, 200), metric(t, "b", "profiling", 2e9, 2e9+300e6, 300)}}
	report, got := collect()
	checkSummaryLatency(dir, "asr/p", r, []aiperfexport.Exports{honest}, report)
	if len(*got) != 0 {
		t.Fatalf("honest run: %v", *got)
	}
	halved := aiperfexport.Exports{Dir: dir, Metrics: []aiperfexport.MetricRecord{
		metric(t, "a", "profiling", 1e9, 1e9+100e6, 100), metric(t, "b", "profiling", 2e9, 2e9+150e6, 150)}}
	checkSummaryLatency(dir, "asr/p", r, []aiperfexport.Exports{halved}, report)
	if !containsAll(*got, "profile_export_aiperf.json", "request_latency avg is 250 ms", "give 125.000 ms") {
		t.Fatalf("halved exports: %v", *got)
	}
	r.AIPerf.Version = "0.14.0"
	*got = nil
	checkSummaryLatency(dir, "asr/p", r, []aiperfexport.Exports{honest}, report)
	if !containsAll(*got, "written by aiperf 0.13.0", "evidence records aiperf 0.14.0") {
		t.Fatalf("version edited: %v", *got)
	}
}

// TestInFlightWithinConcurrency duplicates a request with a fresh id: two in flight at
// concurrency 1.
func TestInFlightWithinConcurrency(t *testing.T) {
	r := servedRow()
	back2back := []aiperfexport.MetricRecord{metric(t, "a", "profiling", 1e9, 2e9, 1000), metric(t, "b", "profiling", 2e9, 3e9, 1000)}
	report, got := collect()
	checkInFlight("asr/p", r, []aiperfexport.Exports{{Dir: "/x", Metrics: back2back}}, report)
	if len(*got) != 0 {
		t.Fatalf("one slot, back to back: %v", *got)
	}
	dup := append(back2back, metric(t, "a2", "profiling", 1e9, 2e9, 1000))
	checkInFlight("asr/p", r, []aiperfexport.Exports{{Dir: "/x", Metrics: dup}}, report)
	if !containsAll(*got, "2 requests in flight at once", "concurrency 1") {
		t.Fatalf("duplicated request: %v", *got)
	}
}

// TestCoverage removes a request's id (and its record): the join's client lines without an id
// differ, and timing no longer covers runs × N.
func TestCoverage(t *testing.T) {
	r := servedRow()
	r.AIPerf.Runs, r.AIPerf.Requests = 2, 6
	report, got := collect()
	r.Timing = &evidence.Timing{Requests: 11}
	checkCoverage("asr/p", r, join.Report{MissingID: []int{7}}, report)
	if !containsAll(*got, "client_lines_without_id recomputed [7]", "evidence says []") || !containsAll(*got, "timing over 11 requests", "2 runs × N=6 = 12") {
		t.Fatalf("%v", *got)
	}
}

// TestRecordCopiesOfARequest edits the record's timing, audio seconds and bundle, and the
// evidence's aiperf version, each against another copy (the audio seconds against the clip
// uploaded: the inputs claim).
func TestRecordCopiesOfARequest(t *testing.T) {
	clip := audio.EncodePCM16(make([]int16, 16000*3/2), 1, 16000) // 1.5 s
	pair := func() join.Pair {
		p := join.Pair{ID: "a", Server: contract.Record{RequestID: "a", Status: 200, BundleSHA256: "aa",
			Output: &contract.RecordOutput{Text: "x", AudioSeconds: 1.5}, Timing: contract.Timing{ModelCallMS: 40, QueueMS: 1, HandlerMS: 45}}}
		p.Client.Payload = map[string]any{"file": map[string]any{"b64_data": base64.StdEncoding.EncodeToString(clip)}}
		p.Server.InputSHA256, _ = workload.UploadedClipSHA(p.Client.Payload)
		p.Client.RequestHeaders = map[string]string{"User-Agent": "aiperf/0.13.0"}
		p.Client.Responses = append(p.Client.Responses, struct {
			Text        string `json:"text"`
			ContentType string `json:"content_type"`
		}{Text: `{"text":"x","trtmc_timing":{"queue_ms":1,"model_call_ms":40,"handler_ms":45}}`})
		return p
	}
	r := servedRow()
	all := func(p join.Pair, report reporter) {
		checkBodyTiming(r.Records, p, report)
		checkInputHashes(t.TempDir(), evidence.Stage{Stage: "asr", TargetKind: "reference"}, r, []join.Pair{p}, false, report)
		checkRecordBundle(r.Records, r, p, report)
		checkUserAgent(r.AIPerf.Dir, r, p, report)
	}
	report, got := collect()
	all(pair(), report)
	if len(*got) != 0 {
		t.Fatalf("honest request: %v", *got)
	}
	for name, c := range map[string]struct {
		edit func(p *join.Pair)
		want []string
	}{
		"model_call_ms halved in the record": {func(p *join.Pair) { p.Server.Timing.ModelCallMS = 20 }, []string{"server-records.jsonl", "trtmc_timing", "response body"}},
		"audio_seconds doubled":              {func(p *join.Pair) { p.Server.Output.AudioSeconds = 3 }, []string{"audio_seconds 3", "lasts 1.5 s"}},
		"another bundle":                     {func(p *join.Pair) { p.Server.BundleSHA256 = "bb" }, []string{"served by bundle bb", "served bundle is aa"}},
		"another aiperf":                     {func(p *join.Pair) { p.Client.RequestHeaders["User-Agent"] = "aiperf/0.12.0" }, []string{"asr/p/aiperf", "User-Agent aiperf/0.12.0", "aiperf 0.13.0"}},
	} {
		t.Run(name, func(t *testing.T) {
			p := pair()
			c.edit(&p)
			report, got := collect()
			all(p, report)
			if len(*got) != 1 || !containsAll(*got, c.want...) {
				t.Fatalf("%v", *got)
			}
		})
	}
}

// recordedInventory is the reference target's evidence as a run records it (runReference: the
// suite's own transitions, one run of every stage).
func recordedInventory(t *testing.T) evidence.Evidence {
	t.Helper()
	e := evidence.Evidence{Target: "suites/targets/reference.yaml", TargetKind: "reference"}
	e.Stages = runReference(t, 1).stages
	return e
}

// TestInventoryIsRebuilt relabels a reduced row full and deletes its gap row; and forges the
// Task of every row of a family, as a forger would who wants the recorded rows to answer the
// family's capabilities.
func TestInventoryIsRebuilt(t *testing.T) {
	e := recordedInventory(t)
	p := pins{Root: repoRoot(t), TRTMCRoot: envOptions().TRTMCRoot}
	report, got := collect()
	checkInventory(p, e, report)
	if len(*got) != 0 {
		t.Fatalf("the recorded inventory: %v", *got)
	}
	asr := e.Stages[0].Inventory
	i := slices.IndexFunc(asr, func(r evidence.InventoryRow) bool { return r.Kind == evidence.KindReduced })
	gap := slices.IndexFunc(asr, func(r evidence.InventoryRow) bool {
		return r.Kind == evidence.KindGap && r.Checkpoint == asr[i].Checkpoint
	})
	if i < 0 || gap < 0 {
		t.Fatalf("the reference inventory has no reduced row with a gap row: %+v", asr)
	}
	reduced, gapRow := asr[i].Profile, asr[gap].Profile
	asr[i].Kind, asr[i].Counted = evidence.KindFull, true
	e.Stages[0].Inventory = slices.Delete(asr, gap, gap+1)
	checkInventory(p, e, report)
	if !containsAll(*got, "asr/stage.json", "inventory row "+reduced+" is not the row", `kind is "full", the rebuilt row's "reduced"`, `counted is true, the rebuilt row's false`) ||
		!containsAll(*got, "asr/stage.json", "inventory has no row with profile "+gapRow) {
		t.Fatalf("relabelled inventory: %v", *got)
	}

	e = recordedInventory(t)
	family := e.Stages[0].Inventory[0].Family
	for i, row := range e.Stages[0].Inventory {
		if row.Family == family {
			e.Stages[0].Inventory[i].NativeTask = "text_to_image"
		}
	}
	*got = nil
	checkInventory(p, e, report)
	if !containsAll(*got, "asr/stage.json", e.Stages[0].Inventory[0].Profile, `native_task is "text_to_image"`) {
		t.Fatalf("every %s row's Task forged: %v", family, *got)
	}
}

// TestBundleHeaderIsTheRow stores another profile's valid bundle under a row.
func TestBundleHeaderIsTheRow(t *testing.T) {
	dir := t.TempDir()
	write := func(profile string) {
		h := bundle.Header{Format: 1, Family: "sphinx", Task: "transcription", Profile: profile, Checkpoint: "cmu/en-us", Revision: "5"}
		if err := bundle.WriteFile(filepath.Join(dir, "p.bundle"), h, map[string][]byte{"x": []byte("x")}); err != nil {
			t.Fatal(err)
		}
	}
	s := evidence.Stage{Stage: "asr", TargetKind: "reference", Inventory: []evidence.InventoryRow{{Profile: "p", Checkpoint: "cmu/en-us", Revision: "5"}}}
	r := evidence.Result{Profile: "p", Bundle: evidence.Bundle{Path: "p.bundle"}}
	report, got := collect()
	write("p")
	checkBundleHeader(dir, "asr/p", s, r, report)
	if len(*got) != 0 {
		t.Fatalf("the row's own bundle: %v", *got)
	}
	write("sphinx-an4-l0")
	checkBundleHeader(dir, "asr/p", s, r, report)
	if !containsAll(*got, "p.bundle", "bundle header says profile sphinx-an4-l0", "row asr/p") {
		t.Fatalf("another profile's bundle: %v", *got)
	}
}

// TestJUnitPropertiesAreTheEvidence edits the evidence's hardware, a timing figure and a gate
// figure, leaving the JUnit report's copies; and a case carrying a figure the row has not.
func TestJUnitPropertiesAreTheEvidence(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "junit"), 0o755)
	os.WriteFile(filepath.Join(dir, "junit", "asr.xml"), []byte(`<testsuites><testsuite name="asr">
<properties><property name="stage" value="asr"></property><property name="shard" value="0/0"></property><property name="hardware.cores" value="2"></property><property name="hardware.cpu" value=""></property><property name="hardware.gpu" value=""></property><property name="target" value=""></property><property name="target_kind" value=""></property><property name="version.aiperf" value="0.13.0"></property><property name="scope" value="no rows: nothing of the stage is run (blocked, or the target has no row for it)"></property></properties>
<testcase name="keeps client latency apart" classname="asr.p"><properties><property name="client_latency_p50_ms" value="812.5"></property></properties></testcase>
<testcase name="passes the gate" classname="asr.p"><properties><property name="gate_gold_wer" value="0.04"></property></properties></testcase>
</testsuite></testsuites>`), 0o644)
	row := evidence.Result{Profile: "p", Timing: &evidence.Timing{Figures: []evidence.Figure{{Name: "client_latency_p50", Unit: "ms", Value: 812.5}}},
		Gate: &evidence.GateResult{Figures: map[string]float64{"gold_wer": 0.04}}}
	e := evidence.Evidence{Stages: []evidence.Stage{{Stage: "asr", Hardware: evidence.Hardware{Cores: 2}, Versions: map[string]string{"aiperf": "0.13.0"}, Results: []evidence.Result{row}}}}
	report, got := collect()
	checkJUnitProperties(dir, e, report)
	if len(*got) != 0 {
		t.Fatalf("the evidence as reported: %v", *got)
	}
	e.Stages[0].Hardware.Cores, e.Stages[0].Versions["aiperf"] = 112, "0.14.0"
	row.Timing.Figures[0].Value, row.Gate.Figures["gold_wer"] = 400, 0
	checkJUnitProperties(dir, e, report)
	for _, want := range [][]string{{"junit/asr.xml", "hardware.cores is \"2\"", "\"112\""}, {"version.aiperf is \"0.13.0\"", "\"0.14.0\""},
		{"client_latency_p50_ms is 812.5", "says 400"}, {"gate_gold_wer is 0.04", "says 0"}} {
		if !containsAll(*got, want...) {
			t.Errorf("no problem contains %q: %v", want, *got)
		}
	}
	// A figure the row's rendering does not hold (one the evidence dropped, or one invented) is named.
	os.WriteFile(filepath.Join(dir, "junit", "asr.xml"), []byte(`<testsuites><testsuite name="asr">
<properties><property name="stage" value="asr"></property></properties>
<testcase name="passes the gate" classname="asr.p"><properties><property name="gate_invented" value="1"></property></properties></testcase>
</testsuite></testsuites>`), 0o644)
	report, got = collect()
	checkJUnitProperties(dir, e, report)
	if !containsAll(*got, "property gate_invented=1 is no figure of evidence row asr/p") {
		t.Errorf("an invented figure: %v", *got)
	}
}

// TestCommandFileIsTheEvidence records another aiperf version in the evidence than the one the
// runner's command.json says ran.
func TestCommandFileIsTheEvidence(t *testing.T) {
	dir := t.TempDir()
	r := servedRow()
	os.MkdirAll(filepath.Join(dir, "asr", "p"), 0o755)
	os.WriteFile(filepath.Join(dir, "asr", "p", "command.json"), []byte(`{"command":["aiperf","profile","--concurrency","1"],"exit_code":0,"aiperf_version":"0.13.0"}`), 0o644)
	report, got := collect()
	checkCommandFile(dir, r, report)
	if len(*got) != 0 {
		t.Fatalf("the recorded command: %v", *got)
	}
	r.AIPerf.Version = "0.14.0"
	checkCommandFile(dir, r, report)
	if !containsAll(*got, "asr/p/command.json", "AIPerf ran as aiperf 0.13.0", "the evidence records aiperf 0.14.0") {
		t.Fatalf("another version recorded: %v", *got)
	}
}
