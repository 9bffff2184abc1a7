package verify

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

// queueRaiseMS is how long the forged queue says each request waited for a lane.
const queueRaiseMS = 4000.0

// roundSixForgeries are kinds of the sixth red team's forgeries, each re-signed by a forger: a
// picture that lies through data no other copy bounded, a second source hidden behind AIPerf's
// empty window, a request deleted where AIPerf's numbering leaves no gap, a gate figure taken as recorded that contradicts its own verdict.
func roundSixForgeries() []tamper {
	asr := string(stage.ASR)
	return []tamper{
		{name: "R6 a T2I variant's worst PSNR set under its pinned bound, still passed (figures and JUnit; a row that serves no image)", forged: true,
			want: []string{"t2i/", "gate recorded as passed=true", "psnr_min_db 20.5 is below its pinned bound"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.notServed(string(stage.T2I))
				f.stage(string(stage.T2I), func(s *evidence.Stage) { s.Results[i].Gate.Figures["psnr_min_db"] = 20.5 })
				f.junitGate(string(stage.T2I), i)
			}},
		{name: "R6 a T2I variant's PSNR and SSIM raised with their JUnit copies, its items left (E17 made consistent with JUnit)", forged: true,
			want: []string{"t2i/", "gate recorded as passed=true", "is not its items' worst SSIM"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.notServed(string(stage.T2I))
				f.stage(string(stage.T2I), func(s *evidence.Stage) {
					s.Results[i].Gate.Figures["psnr_min_db"] = 85.25
					s.Results[i].Gate.Figures["ssim_min"] = 0.99999
				})
				f.junitGate(string(stage.T2I), i)
			}},
		{name: "R6 every served request's queue_ms raised 4 s in the records and the response bodies alike (the timelines' queue bars and Task bars redrawn from it)", forged: true,
			want: []string{"server-records.jsonl", "exceed its handler"},
			edit: func(t *testing.T, f *forger) { raiseQueue(f, asr) }},
		{name: "R6 the last-numbered measured request of every AIPerf run deleted everywhere, N and the phase manifests' counts lowered (no session_num left out)", forged: true,
			want: []string{"profile_export_aiperf.json at ", "but the profiling phase's summary phases/profiling/profile_export_aiperf.json (a copy of it) has"},
			edit: func(t *testing.T, f *forger) {
				dropPerRun(t, f, asr, true, func(m map[string]any) int64 { return nsOf(t, m, "session_num") })
			}},
		{name: "R6 every Task time of a row halved, the scrape's Task histogram written as AIPerf's empty window {\"count\": 0}", forged: true,
			want: []string{"server_metrics_export.json", "counted no Task call in the profiling window"},
			edit: func(t *testing.T, f *forger) { halveRowTaskTimes(t, f, f.emptyScrapeWindow) }},
	}
}

// raiseQueue adds queueRaiseMS to the queue_ms of every request of a qualified row that ran a
// Task, in its server records and in the trtmc_timing of its response bodies, and re-renders
// the report: the timelines now draw a queue before every Task.
func raiseQueue(f *forger, stageName string) {
	_, r := f.result(stageName, evidence.StatusQualified, "")
	raise := func(timing any) {
		m, ok := timing.(map[string]any)
		if !ok {
			return
		}
		task, _ := m["model_call_ms"].(json.Number).Float64()
		queue, _ := m["queue_ms"].(json.Number).Float64()
		if task > 0 {
			m["queue_ms"] = json.Number(strconv.FormatFloat(queue+queueRaiseMS, 'f', -1, 64))
		}
	}
	f.timingsExact(r, raise)
	f.report()
}

// emptyScrapeWindow writes every trtmc_task_call_seconds series of a run's scrape as AIPerf
// writes a window that counted no call: {"count": 0}, no sum, mean or buckets.
func (f *forger) emptyScrapeWindow(rel string) {
	f.scrapeSections(rel, func(metrics map[string]any) {
		hist, _ := metrics["trtmc_task_call_seconds"].(map[string]any)
		series, _ := hist["series"].([]any)
		for _, sr := range series {
			one := sr.(map[string]any)
			one["stats"] = map[string]any{"count": 0}
			delete(one, "buckets")
		}
	})
}
