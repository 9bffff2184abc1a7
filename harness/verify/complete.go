package verify

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// reporter records one problem: where (a file, or stage/profile) and what.
type reporter func(where, format string, args ...any)

// backingCheck: each row's status is backed by what it claims.
func backingCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) { checkBacking(row.Where, row.Stage, row.Result, report) })
}

// checkBacking requires every status to carry what it claims (like MLPerf's submission checker
// requiring every result to have its logs): aiperf-qualified needs the AIPerf run, the join, the
// identity comparison, meaningful outputs, timing, a passed no-caching check and a passed gate; family-validated needs a
// passed gate; planned claims nothing. A counted row must be a full model in the inventory.
func checkBacking(where string, s evidence.Stage, r evidence.Result, report reporter) {
	gatePassed := r.Gate != nil && r.Gate.Passed && len(r.Gate.Failures) == 0 && r.ThresholdPin != ""
	switch r.Status {
	case evidence.StatusQualified:
		var missing []string
		add := func(ok bool, what string) {
			if !ok {
				missing = append(missing, what)
			}
		}
		add(gatePassed, "a passed gate with pinned thresholds")
		add(r.AIPerf != nil && r.AIPerf.ExitCode == 0 && r.AIPerf.Dir != "", "AIPerf artifacts")
		add(r.Records != "", "server records")
		add(r.Join != nil && r.Join.OK(), "a clean join")
		add(r.Identity != nil && r.Identity.Requests > 0 && r.Identity.Equal == r.Identity.Requests && len(r.Identity.Mismatches) == 0 && len(r.Outputs) == r.Identity.Requests, "native/HTTP identity for every request")
		add(r.Meaning != nil && len(r.Meaning.Failures) == 0, "meaningful outputs")
		add(r.Timing != nil && r.Timing.Requests > 0, "timing")
		add(r.NoCache != nil && r.NoCache.Passed, "a passed no-caching check")
		add(len(r.Failures) == 0, "no recorded failures")
		if len(missing) > 0 {
			report(where, "status %s without %s", r.Status, strings.Join(missing, ", "))
		}
	case evidence.StatusFamilyValidated:
		if !gatePassed {
			report(where, "status %s without a passed gate with pinned thresholds", r.Status)
		}
	case evidence.StatusPlanned:
		if r.Gate != nil || r.AIPerf != nil || r.Join != nil || r.Identity != nil || r.Timing != nil || len(r.Outputs) > 0 || r.Bundle.SHA256Built != "" {
			report(where, "status planned but the row claims results (gate, AIPerf, join, identity, timing, outputs or a bundle)")
		}
	}
	checkCounted(where, s, r, report)
}

// checkCounted ties a row's kind and counting to the stage's inventory: reduced and variant rows
// are never counted.
func checkCounted(where string, s evidence.Stage, r evidence.Result, report reporter) {
	i := slices.IndexFunc(s.Inventory, func(row evidence.InventoryRow) bool { return row.Profile == r.Profile })
	if i < 0 {
		report(where, "result has no inventory row")
		return
	}
	row := s.Inventory[i]
	if r.Counted != row.Counted || r.Kind != row.Kind {
		report(where, "result says kind %s counted=%v, the inventory row says kind %s counted=%v", r.Kind, r.Counted, row.Kind, row.Counted)
	}
	if r.Counted && r.Kind != evidence.KindFull {
		report(where, "a %s row is counted: only full models are", r.Kind)
	}
	if row.Status != r.Status {
		report(where, "inventory row status %s, result status %s", row.Status, r.Status)
	}
}

// checkRequests requires every request AIPerf sent (warmup included) to have succeeded on both
// sides, and the counts to be the target's W and N as recorded in the AIPerf command that ran.
func checkRequests(where string, r evidence.Result, exports aiperfexport.Exports, records []contract.Record, report reporter) {
	var bad []string
	phases := map[string]int{}
	for _, raw := range exports.Raw {
		phases[raw.Metadata.Phase]++
		if raw.Status < 200 || raw.Status > 299 || raw.HasError() {
			bad = append(bad, fmt.Sprintf("%s (%s) HTTP %d error %s", raw.HeaderRequestID(), raw.Metadata.Phase, raw.Status, compact(string(raw.Error))))
		}
	}
	for _, m := range exports.Metrics {
		if len(m.Error) > 0 && string(m.Error) != "null" {
			bad = append(bad, fmt.Sprintf("%s: profile_export.jsonl error %s", m.Metadata.XRequestID, compact(string(m.Error))))
		}
	}
	for _, rec := range records {
		// Only the measured route: readiness polls answer 503 while the bundle loads.
		if r.Join != nil && rec.Route == r.Join.Route && (rec.Status < 200 || rec.Status > 299) {
			bad = append(bad, fmt.Sprintf("%s: server record status %d", rec.RequestID, rec.Status))
		}
	}
	if len(bad) > 0 && r.Status != evidence.StatusFailed { // a failed row may hold failed requests
		report(where, "%d failed requests under a %s row: %s", len(bad), r.Status, strings.Join(bad, "; "))
	}
	if r.AIPerf == nil {
		return
	}
	warmup, measured := commandCount(r.AIPerf.Command, "--warmup-request-count"), commandCount(r.AIPerf.Command, "--request-count")
	settings := func(k string) int {
		v, _ := r.Settings[k].(float64)
		return int(v)
	}
	runs := max(1, r.AIPerf.Runs) // a repeated profile: each run has its warmup and N
	if phases["warmup"] != runs*r.AIPerf.Warmup || phases["profiling"] != runs*r.AIPerf.Requests || warmup != r.AIPerf.Warmup || measured != r.AIPerf.Requests ||
		settings("warmup") != r.AIPerf.Warmup || settings("requests") != r.AIPerf.Requests || len(exports.Metrics) != len(exports.Raw) {
		report(where, "request counts disagree: raw export %d warmup + %d measured, metrics export %d records, AIPerf command W=%d N=%d, evidence W=%d N=%d, settings W=%d N=%d",
			phases["warmup"], phases["profiling"], len(exports.Metrics), warmup, measured, r.AIPerf.Warmup, r.AIPerf.Requests, settings("warmup"), settings("requests"))
	}
}

// checkAggregate reads AIPerf's own summary of the run: complete, not cancelled, no errors, and
// the measured and warmup request counts the evidence records.
func checkAggregate(runDir, where string, r evidence.Result, report reporter) {
	aiperfDir, err := workload.InsideDir(runDir, "aiperf.dir", r.AIPerf.Dir)
	if err != nil {
		report(where, "%v", err)
		return
	}
	dirs, err := filepath.Glob(filepath.Join(aiperfDir, aiperfexport.RunsDir, "run_*"))
	if err != nil {
		report(where, "AIPerf run directories under %s: %v", r.AIPerf.Dir, err)
	}
	if len(dirs) == 0 {
		dirs = []string{aiperfDir}
	}
	if len(dirs) != max(1, r.AIPerf.Runs) {
		report(where, "%d AIPerf run directories, evidence records %d runs", len(dirs), max(1, r.AIPerf.Runs))
	}
	if r.Status == evidence.StatusFailed {
		return // AIPerf counts only completed requests: a failed row's summary differs by design
	}
	for _, dir := range dirs {
		rel, _ := filepath.Rel(runDir, filepath.Join(dir, "profile_export_aiperf.json"))
		checkRunAggregate(runDir, filepath.ToSlash(rel), r, report)
	}
}

func checkRunAggregate(runDir, rel string, r evidence.Result, report reporter) {
	data, err := runfile.ReadIn(runDir, rel)
	if err != nil {
		report(rel, "AIPerf aggregate export: %v", err)
		return
	}
	type count struct {
		Avg float64 `json:"avg"`
	}
	var agg struct {
		RequestCount  count             `json:"request_count"`
		ErrorRate     count             `json:"request_error_rate"`
		ErrorSummary  []json.RawMessage `json:"error_summary"`
		WasCancelled  bool              `json:"was_cancelled"`
		IsComplete    bool              `json:"is_complete"`
		WarmupMetrics struct {
			RequestCount count `json:"request_count"`
		} `json:"warmup_metrics"`
	}
	if err := json.Unmarshal(data, &agg); err != nil {
		report(rel, "AIPerf aggregate export: %v", err)
		return
	}
	if int(agg.RequestCount.Avg) != r.AIPerf.Requests || int(agg.WarmupMetrics.RequestCount.Avg) != r.AIPerf.Warmup ||
		!agg.IsComplete || agg.WasCancelled || agg.ErrorRate.Avg != 0 || len(agg.ErrorSummary) != 0 {
		report(rel, "AIPerf's summary says %v measured + %v warmup requests, complete=%v, cancelled=%v, error rate %v%%, %d error kinds; evidence records W=%d N=%d",
			agg.RequestCount.Avg, agg.WarmupMetrics.RequestCount.Avg, agg.IsComplete, agg.WasCancelled, agg.ErrorRate.Avg, len(agg.ErrorSummary), r.AIPerf.Warmup, r.AIPerf.Requests)
	}
}

// commandCount reads an integer flag from a recorded command line (-1 when absent).
func commandCount(argv []string, flag string) int {
	for i, a := range argv {
		v, ok := strings.CutPrefix(a, flag+"=")
		if a == flag && i+1 < len(argv) {
			v, ok = argv[i+1], true
		}
		if ok {
			if n, err := strconv.Atoi(v); err == nil {
				return n
			}
		}
	}
	return -1
}

func compact(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
