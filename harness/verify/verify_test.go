package verify

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/metrics"

	harnessaiperf "github.com/trtmc-qual/trtmc-qual/harness/aiperf"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// writeRun builds a small published ASR run the way the suites do: AIPerf-shaped exports,
// server records, and evidence derived from them by the same functions.
func writeRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ck := filepath.Join(dir, "asr", "m")
	art := filepath.Join(ck, "aiperf", "artifacts")
	os.MkdirAll(art, 0o755)
	texts := []string{"go forward ten meters", "five five", "he was not an ill disposed young man"}
	golds := []string{"go forward ten meters", "five five", "he was not an ill disposed young man"}
	var raw, metricLines, records []string
	for i := range 4 {
		id := fmt.Sprintf("req-%d", i)
		phase := "profiling"
		if i == 0 {
			phase = "warmup"
		}
		text := texts[i%3]
		start := int64(1_000_000_000 * (i + 1))
		meta := fmt.Sprintf(`{"x_request_id":%q,"benchmark_phase":%q,"request_start_ns":%d,"request_end_ns":%d}`, id, phase, start, start+40_000_000)
		raw = append(raw, fmt.Sprintf(`{"metadata":%s,"request_headers":{"X-Request-ID":%q},"status":200,"responses":[{"text":%q}]}`, meta, id, `{"text":"`+text+`"}`))
		metricLines = append(metricLines, fmt.Sprintf(`{"metadata":%s,"metrics":{"request_latency":{"value":%d,"unit":"ms"}}}`, meta, 40))
		rec, _ := json.Marshal(contract.Record{RequestID: id, Route: "/v1/audio/transcriptions", Status: 200,
			Output: &contract.RecordOutput{Text: text, AudioSeconds: 2}, Timing: contract.Timing{ModelCallMS: float64(30 + i), HandlerMS: 35}})
		records = append(records, string(rec))
	}
	os.WriteFile(filepath.Join(art, "profile_export_raw.jsonl"), []byte(strings.Join(raw, "\n")+"\n"), 0o644)
	os.WriteFile(filepath.Join(art, "profile_export.jsonl"), []byte(strings.Join(metricLines, "\n")+"\n"), 0o644)
	os.WriteFile(filepath.Join(ck, "server-records.jsonl"), []byte(strings.Join(records, "\n")+"\n"), 0o644)

	exports, err := harnessaiperf.Read(art)
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := contract.ParseRecords([]byte(strings.Join(records, "\n")))
	rep := join.Join(exports.Raw, recs, "/v1/audio/transcriptions")
	samples, _, _, err := timing.Samples(rep.Pairs, exports.Metrics)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := timing.Summarize(samples)
	if err != nil {
		t.Fatal(err)
	}
	var outputs []evidence.Output
	for i, p := range rep.Pairs {
		outputs = append(outputs, evidence.Output{RequestID: p.ID, HTTPOutput: p.Server.Output.Text, Native: p.Server.Output.Text, Gold: golds[i%3]})
	}
	wer, _, _ := metrics.GoldCorpusWER(evidence.GoldPairs(outputs))
	sha := strings.Repeat("a", 64)
	stage := evidence.Stage{SchemaVersion: evidence.SchemaVersion, Stage: "asr", Number: 3, Status: "qualified", Results: []evidence.Result{{
		Profile: "m", Kind: "full", Counted: true, Status: inventory.StatusQualified,
		Bundle: evidence.Bundle{SHA256Built: sha, SHA256Gated: sha, SHA256Served: sha, SHA256After: sha},
		AIPerf: &evidence.AIPerfRun{Dir: "asr/m/aiperf/artifacts"}, Join: &rep, Timing: &sum, Outputs: outputs,
		Records: "asr/m/server-records.jsonl", Meaning: &evidence.Meaning{Checks: map[string]float64{"gold_wer": wer}}}}}
	if err := evidence.WriteJSON(filepath.Join(dir, "asr", "stage.json"), stage); err != nil {
		t.Fatal(err)
	}
	if _, err := evidence.Assemble(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestVerifyAcceptsAnIntactRun(t *testing.T) {
	problems, err := Run(writeRun(t))
	if err != nil || len(problems) != 0 {
		t.Fatalf("intact run: %v %v", problems, err)
	}
}

// TestVerifyCatchesTampering changes one stored value at a time; each must be caught.
func TestVerifyCatchesTampering(t *testing.T) {
	edits := map[string]func(dir string){
		"timing figure in evidence.json": func(dir string) {
			path := filepath.Join(dir, "evidence.json")
			var e map[string]any
			data, _ := os.ReadFile(path)
			json.Unmarshal(data, &e)
			fig := e["stages"].([]any)[0].(map[string]any)["results"].([]any)[0].(map[string]any)["timing"].(map[string]any)["figures"].([]any)[1].(map[string]any)
			fig["value"] = fig["value"].(float64) + 0.5
			out, _ := json.Marshal(e)
			os.WriteFile(path, out, 0o644)
		},
		"transcript in the raw export": func(dir string) {
			replaceIn(t, filepath.Join(dir, "asr", "m", "aiperf", "artifacts", "profile_export_raw.jsonl"), `five five`, `five six`)
		},
		"a server record removed": func(dir string) {
			path := filepath.Join(dir, "asr", "m", "server-records.jsonl")
			data, _ := os.ReadFile(path)
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			os.WriteFile(path, []byte(strings.Join(lines[1:], "\n")+"\n"), 0o644)
		},
		"the report": func(dir string) {
			replaceIn(t, filepath.Join(dir, "qualification.md"), "QUALIFIED", "QUALIFIED!")
		},
		"a measured client latency": func(dir string) {
			replaceIn(t, filepath.Join(dir, "asr", "m", "aiperf", "artifacts", "profile_export.jsonl"), `"request_start_ns":3000000000,"request_end_ns":3040000000},"metrics":{"request_latency":{"value":40`,
				`"request_start_ns":3000000000,"request_end_ns":3040000000},"metrics":{"request_latency":{"value":45`)
		},
	}
	for name, edit := range edits {
		t.Run(name, func(t *testing.T) {
			dir := writeRun(t)
			edit(dir)
			problems, err := Run(dir)
			if err == nil && len(problems) == 0 {
				t.Fatalf("tampering with %s went unnoticed", name)
			}
			t.Logf("caught: %v %v", problems, err)
		})
	}
}

func replaceIn(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644)
}
