package verify

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report"
	"github.com/trtmc-qual/trtmc-qual/harness/report/chart"
	"github.com/trtmc-qual/trtmc-qual/harness/report/doc"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

// pictureForgeries redraw a qualified row's pictures from data the forger edited, every figure
// of the run drawn again as `qual report` draws it (qualification.md, its figures and the
// page's inline pictures consistent), the evidence and the row's files untouched, re-signed by
// the forger: the pictures say what the files do not.
func pictureForgeries() []tamper {
	return []tamper{
		{name: "R5 the latency picture redrawn without the slowest quarter of the requests", forged: true,
			want: []string{"figures/asr-", "-latency.svg", "is not the picture drawn from the row's stored exports and records"},
			edit: func(t *testing.T, f *forger) { f.redrawPictures(withoutSlowestQuarter) }},
		{name: "R5 a timeline redrawn with its first lane's bars moved half a second later", forged: true,
			want: []string{"figures/asr-", "-run-01.svg", "is not the picture drawn from the row's stored exports and records"},
			edit: func(t *testing.T, f *forger) { f.redrawPictures(firstLaneLater) }},
		{name: "R5 a row's server lanes relabelled 1, its timelines' second lane drawn as over", forged: true,
			want: []string{"settings.lanes 1", "the target file's server has 2 lanes"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.result(string(stage.ASR), evidence.StatusQualified, "")
				f.stage(string(stage.ASR), func(s *evidence.Stage) { s.Results[i].Settings["lanes"] = 1 })
			}},
	}
}

// redrawPictures draws every picture of the run again, as `qual report` does, from the rows'
// data with the first qualified ASR row's edited by forge, and writes qualification.md, its
// figures and report.html.
func (f *forger) redrawPictures(forge func(*claim.Pictures)) {
	f.t.Helper()
	_, r := f.result(string(stage.ASR), evidence.StatusQualified, "")
	pics := report.LoadPictures(f.dir, f.e)
	key := report.PictureKey(string(stage.ASR), r.Profile)
	p, ok := pics[key]
	if !ok {
		f.t.Fatalf("%s has no pictures to redraw", key)
	}
	forge(&p)
	pics[key] = p
	d := report.Build(f.e, pics)
	if err := os.RemoveAll(f.path(report.FigureDir)); err != nil {
		f.t.Fatal(err)
	}
	if err := os.MkdirAll(f.path(report.FigureDir), 0o755); err != nil {
		f.t.Fatal(err)
	}
	for rel, svg := range report.FigureFiles(d) {
		if err := os.WriteFile(f.path(rel), svg, 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
	for name, data := range map[string][]byte{"qualification.md": []byte(doc.Markdown(d)), "report.html": doc.HTML(d)} {
		if err := os.WriteFile(filepath.Join(f.dir, name), data, 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
}

// withoutSlowestQuarter drops the quarter of the measured requests with the longest client
// latency (at least one): the tail a reader looks for.
func withoutSlowestQuarter(p *claim.Pictures) {
	order := make([]int, len(p.ClientMS))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return p.ClientMS[order[a]] < p.ClientMS[order[b]] })
	keep := order[:len(order)-max(1, len(order)/4)]
	var client, task []float64
	for _, i := range keep {
		client, task = append(client, p.ClientMS[i]), append(task, p.TaskMS[i])
	}
	p.ClientMS, p.TaskMS = client, task
}

// firstLaneLater moves every request the first run's first lane served half a second later.
func firstLaneLater(p *claim.Pictures) {
	run := p.Runs[0]
	spans := make([]chart.Span, len(run))
	for i, s := range run {
		spans[i] = chart.Span(s)
	}
	lanes, _ := chart.AssignLanes(spans)
	for i := range run {
		if lanes[i] == 0 {
			run[i].ArrivalS += 0.5
			run[i].EndS += 0.5
		}
	}
}
