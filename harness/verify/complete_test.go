package verify

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// collect returns a reporter and the problems it gathered.
func collect() (reporter, *[]string) {
	var out []string
	return func(where, format string, args ...any) { out = append(out, where+": "+fmt.Sprintf(format, args...)) }, &out
}

func TestCommandCountReadsBothFlagSpellings(t *testing.T) {
	argv := []string{"aiperf", "profile", "--request-count", "8", "--warmup-request-count=2"}
	if got := commandCount(argv, "--request-count"); got != 8 {
		t.Errorf("--request-count = %d", got)
	}
	if got := commandCount(argv, "--warmup-request-count"); got != 2 {
		t.Errorf("--warmup-request-count = %d", got)
	}
	if got := commandCount(argv, "--concurrency"); got != -1 {
		t.Errorf("absent flag = %d", got)
	}
}

func TestStatusesNeedWhatTheyClaim(t *testing.T) {
	stage := func(r evidence.Result) evidence.Stage {
		return evidence.Stage{Stage: "asr", Results: []evidence.Result{r},
			Inventory: []evidence.InventoryRow{{Profile: r.Profile, Kind: evidence.KindReduced, Status: r.Status}}}
	}
	cases := []struct {
		r    evidence.Result
		want string
	}{
		{evidence.Result{Profile: "m", Kind: evidence.KindReduced, Status: evidence.StatusQualified},
			"m: status aiperf-qualified without a passed gate with pinned thresholds, AIPerf artifacts, server records, a clean join, native/HTTP identity for every request, meaningful outputs, timing, a passed no-caching check"},
		{evidence.Result{Profile: "m", Kind: evidence.KindReduced, Status: evidence.StatusQualified, NoCache: &evidence.NoCache{Passed: false}},
			"timing, a passed no-caching check"},
		{evidence.Result{Profile: "m", Kind: evidence.KindReduced, Status: evidence.StatusFamilyValidated, Gate: &evidence.GateResult{Passed: false}},
			"m: status family-validated without a passed gate with pinned thresholds"},
		{evidence.Result{Profile: "m", Kind: evidence.KindReduced, Status: evidence.StatusPlanned, Gate: &evidence.GateResult{Passed: true}},
			"m: status planned but the row claims results"},
		{evidence.Result{Profile: "m", Kind: evidence.KindReduced, Counted: true, Status: evidence.StatusFailed},
			"m: a reduced row is counted: only full models are"},
	}
	for _, c := range cases {
		report, got := collect()
		checkBacking("m", stage(c.r), c.r, report)
		if !containsAll(*got, c.want) {
			t.Errorf("%s %+v: got %v, want %q", c.r.Status, c.r, *got, c.want)
		}
	}
	report, got := collect()
	planned := evidence.Result{Profile: "m", Kind: evidence.KindReduced, Status: evidence.StatusPlanned}
	if checkBacking("m", stage(planned), planned, report); len(*got) != 0 {
		t.Errorf("a bare planned row: %v", *got)
	}
}

func TestFailedRequestsAreListed(t *testing.T) {
	raw := func(id, phase string, status int, errBody string) aiperfexport.RawRecord {
		var r aiperfexport.RawRecord
		json.Unmarshal([]byte(fmt.Sprintf(`{"metadata":{"x_request_id":%q,"benchmark_phase":%q},"request_headers":{"X-Request-ID":%q},"status":%d,"error":%s}`,
			id, phase, id, status, errBody)), &r)
		return r
	}
	exports := aiperfexport.Exports{Raw: []aiperfexport.RawRecord{raw("a", "warmup", 200, "null"), raw("b", "profiling", 500, `{"message":"boom"}`), raw("c", "profiling", 200, "null")}}
	records := []contract.Record{{RequestID: "a", Route: "/r", Status: 200}, {RequestID: "b", Route: "/r", Status: 500}, {RequestID: "h", Route: "/health/ready", Status: 503}}
	r := evidence.Result{Status: evidence.StatusQualified, Join: &evidence.Join{Route: "/r"}, AIPerf: &evidence.AIPerfRun{Warmup: 1, Requests: 3, Command: []string{"aiperf", "--request-count", "3", "--warmup-request-count", "1"}},
		Settings: map[string]any{"warmup": 1.0, "requests": 3.0}}
	report, got := collect()
	checkRequests("asr/m", r, exports, records, report)
	if !containsAll(*got, "asr/m: 2 failed requests under a aiperf-qualified row: b (profiling) HTTP 500 error {\"message\":\"boom\"}; b: server record status 500") {
		t.Errorf("failed requests: %v", *got)
	}
	if !containsAll(*got, "request counts disagree: raw export 1 warmup + 2 measured") {
		t.Errorf("counts: %v", *got)
	}
	r.Status = evidence.StatusFailed // the row already fails: its failed requests are its evidence
	report, got = collect()
	if checkRequests("asr/m", r, exports, records, report); containsAll(*got, "failed requests") {
		t.Errorf("failed requests reported under a failed row: %v", *got)
	}
}

func TestJUnitMustAgreeWithTheRow(t *testing.T) {
	specs := []spec{
		{File: "junit/a.xml", Name: "[It] Stage 3: x m (checkpoint c@r, full model, counted) runs aiperf==0.13.0 [asr]", Status: "passed"},
		{File: "junit/a.xml", Name: "[It] Stage 3: x m (checkpoint c@r, full model, counted) gives meaningful outputs [asr]", Status: "failed"},
		{File: "junit/a.xml", Name: "[It] Stage 3: x m-fast (checkpoint c@r, variant) passes the gate [asr]", Status: "passed"},
		{File: "junit/b.xml", Name: "passes the gate", Classname: "asr.m-fast", Status: "passed"},
		{File: "junit/b.xml", Name: "passes the gate", Classname: "t2i.m", Status: "failed"},
	}
	report, got := collect()
	checkRowSpecs("asr/m", evidence.Result{Status: evidence.StatusQualified}, rowSpecs(specs, "asr", "m"), nil, report)
	if len(*got) != 1 || !strings.HasPrefix((*got)[0], `junit/a.xml: spec "[It] Stage 3: x m (checkpoint c@r, full model, counted) gives meaningful outputs [asr]" is failed, but evidence row asr/m is aiperf-qualified`) {
		t.Errorf("failed spec under a qualified row: %v", *got)
	}
	report, got = collect()
	checkRowSpecs("asr/m-fast", evidence.Result{Status: evidence.StatusFailed}, rowSpecs(specs, "asr", "m-fast"), nil, report)
	if !containsAll(*got, "status failed, but every JUnit spec of the row passed") {
		t.Errorf("failed row with passing specs: %v", *got)
	}
}
