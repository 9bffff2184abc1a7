package report

import (
	"fmt"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report/chart"
	"github.com/trtmc-qual/trtmc-qual/harness/report/doc"
)

// Pictures are each measured row's picture data (harness/claim), by PictureKey: what Build
// draws the latency figure and the per-run timelines from. A measured row without an entry is
// one whose files do not load; its pictures are said to be not drawn.
type Pictures map[string]claim.Pictures

// PictureKey names a row in Pictures.
func PictureKey(stage, profile string) string { return stage + "/" + profile }

// LoadPictures reads each measured row's files from runDir and derives its picture data:
// what `qual report` draws. The join matches the row's recorded route; `qual verify` derives
// the join with the stage's own route (PicturesOf over the rows it loaded) and checks the
// recorded join against it, so a forged route is named there.
func LoadPictures(runDir string, e evidence.Evidence) Pictures {
	return PicturesOf(e, func(_ evidence.Stage, r evidence.Result) *claim.Artifacts {
		var given claim.Given
		if r.Join != nil {
			given.Route = r.Join.Route
		}
		return claim.Load(runDir, r, given)
	})
}

// PicturesOf derives each measured row's picture data from its loaded files (load gives them).
func PicturesOf(e evidence.Evidence, load func(evidence.Stage, evidence.Result) *claim.Artifacts) Pictures {
	out := Pictures{}
	for _, s := range e.Stages {
		for _, r := range s.Results {
			if r.Timing == nil {
				continue
			}
			if p, err := load(s, r).Pictures(); err == nil {
				out[PictureKey(s.Stage, r.Profile)] = p
			}
		}
	}
	return out
}

// FigureDir is where the report writes its pictures for qualification.md, inside the run.
const FigureDir = "figures"

// figurePath is a picture's file: the row's stage and profile made a file name (any character
// outside letters, digits, '.', '-' and '_' replaced), then what it shows.
func figurePath(stage, profile, what string) string {
	safe := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
				return r
			}
			return '_'
		}, s)
	}
	return FigureDir + "/" + strings.TrimLeft(safe(stage)+"-"+safe(profile), ".") + "-" + what + ".svg"
}

// latencyFigure is the row's latency figure, drawn from its measured requests.
func latencyFigure(stage string, r evidence.Result, p claim.Pictures) (doc.Figure, error) {
	alt := "latency of " + r.Profile
	svg, err := chart.Latency{Title: r.Profile + ": client latency vs Task call (measured requests)", Label: alt, ClientMS: p.ClientMS, TaskMS: p.TaskMS}.SVG()
	return doc.Figure{Src: figurePath(stage, r.Profile, "latency"), SVG: svg, Alt: alt, Class: "latency",
		Caption: doc.T(r.Profile + ": client latency vs Task call, measured requests")}, err
}

// timelineFigures are the row's timelines, one per AIPerf run that has requests.
func timelineFigures(stage string, r evidence.Result, p claim.Pictures) ([]doc.Figure, error) {
	var out []doc.Figure
	for i, run := range p.Runs {
		if len(run) == 0 {
			continue
		}
		spans := make([]chart.Span, len(run))
		for j, s := range run {
			spans[j] = chart.Span(s)
		}
		alt := fmt.Sprintf("timeline of %s, AIPerf run %d", r.Profile, i+1)
		svg, err := chart.Timeline{Title: fmt.Sprintf("%s: AIPerf run %d of %d, seen from the server", r.Profile, i+1, len(p.Runs)), Label: alt,
			Lanes: lanesOf(r), Spans: spans}.SVG()
		if err != nil {
			return nil, err
		}
		out = append(out, doc.Figure{Src: figurePath(stage, r.Profile, fmt.Sprintf("run-%02d", i+1)), SVG: svg, Alt: alt, Class: "timeline",
			Caption: doc.T(fmt.Sprintf("%s: AIPerf run %d seen from the server (queue, Task, warmup, failures)", r.Profile, i+1))})
	}
	return out, nil
}

// lanesOf is the server's lanes as the row's settings record them (1 when they do not).
func lanesOf(r evidence.Result) int {
	switch v := r.Settings["lanes"].(type) {
	case float64:
		return max(1, int(v))
	case int:
		return max(1, v)
	}
	return 1
}

// FigureFiles are the pictures d shows, by their path inside the run: what Write writes beside
// qualification.md and `qual verify` requires the run's figures directory to hold, exactly.
func FigureFiles(d doc.Document) map[string][]byte {
	out := map[string][]byte{}
	var walk func([]doc.Block)
	walk = func(blocks []doc.Block) {
		for _, b := range blocks {
			switch x := b.(type) {
			case doc.Section:
				walk(x.Blocks)
			case doc.Details:
				walk(x.Blocks)
			case doc.Figures:
				for _, f := range x.Items {
					out[f.Src] = f.SVG
				}
			}
		}
	}
	walk(d.Blocks)
	return out
}
