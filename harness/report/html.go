package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// Light is a row's traffic light in report.html (defined in the report's legend).
type Light string

// The lights.
const (
	Green  Light = "green"  // the row reached what its kind can reach
	Yellow Light = "yellow" // a counted row stopped short without a failing claim
	Red    Light = "red"    // a claim failed
	White  Light = "white"  // nothing was claimed: planned, excluded or blocked
)

// RowLight is the traffic light of one result row.
func RowLight(r evidence.Result) Light {
	switch {
	case r.Status == "failed":
		return Red
	case r.Status == "aiperf-qualified":
		return Green
	case r.Status == "family-validated" && !r.Counted:
		return Green
	case r.Status == "family-validated" || r.Status == "implemented":
		return Yellow
	default:
		return White
	}
}

// WriteHTML writes report.html into runDir: the same content as qualification.md, in one
// self-contained file (no script, no external resource) with each row's latency plot inline.
func WriteHTML(runDir string, e evidence.Evidence) error { return writeHTMLTo(runDir, runDir, e) }

// writeHTMLTo renders the run in runDir (its plots inlined) into outDir/report.html.
func writeHTMLTo(runDir, outDir string, e evidence.Evidence) error {
	page, err := HTML(runDir, e)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, "report.html"), page, 0o644); err != nil {
		return fmt.Errorf("write report.html: %w", err)
	}
	return nil
}

// HTML renders report.html. Plots are embedded as data: URIs in <img>, which a browser never
// runs scripts from, so a plot file cannot inject anything into the page.
func HTML(runDir string, e evidence.Evidence) ([]byte, error) {
	tmpl, err := template.New("report").Funcs(template.FuncMap{
		"verdict": func() string { return evidence.Verdict(e) },
		"banner":  func() string { return evidence.TestBuildBanner(e.Versions) },
		"counts":  func(s evidence.Stage) string { q, _ := StageCells(s); return q },
		"rowsRun": func(s evidence.Stage) string { _, r := StageCells(s); return r },
		"scope":   func() string { return ScopeLine(e) },
		"failedCount": func(s evidence.Stage) string {
			if s.Status == evidence.StatusBlocked || s.Status == evidence.StatusPlanned {
				return "— (" + string(s.Status) + ")"
			}
			if _, _, f := evidence.StageCounts(s); f > 0 {
				return evidence.CountRows(f)
			}
			return "none"
		},
		"failing":     func() []FailingRow { return FailingRows(e) },
		"failedFirst": FailedFirst,
		"checkpoint":  checkpointCell,
		"light":       RowLight,
		"upper":       func(s evidence.Status) string { return strings.ToUpper(string(s)) },
		"gate":        gateCell,
		"join":        joinCell,
		"fails":       func(r evidence.Result) string { return strings.Join(r.Failures, "; ") },
		"plotURI":     func(r evidence.Result) (template.URL, error) { return plotURI(runDir, r) },
		"inc":         func(i int) int { return i + 1 },
		"nocacheRows": func(rs []evidence.Result) bool {
			for _, r := range rs {
				if r.NoCache != nil {
					return true
				}
			}
			return false
		},
		"timelines":   func(r evidence.Result) ([]template.URL, error) { return timelineURIs(runDir, r) },
		"nocache":     NoCacheCells,
		"nocacheHead": func() []string { return noCacheHeader },
		"kv":          func(m map[string]float64) []string { return gateKV(m) },
		"gaps":        gapRows,
		"skipped":     skippedLines, // inputs not sent, by the family's clip limits (skipped.go)
		"perf":        PerfOf,       // the cells qualification.md prints
	}).Parse(htmlTemplate)
	if err != nil {
		return nil, fmt.Errorf("report.html template: %w", err)
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, e); err != nil {
		return nil, fmt.Errorf("render report.html: %w", err)
	}
	return buf.Bytes(), nil
}

func gateKV(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, fmt.Sprintf("%s %.4g", k, m[k]))
	}
	return out
}

// plotURI inlines a row's plot; only a file inside the run directory is read.
func plotURI(runDir string, r evidence.Result) (template.URL, error) {
	if r.Plot == "" {
		return "", nil
	}
	if !filepath.IsLocal(r.Plot) || filepath.Ext(r.Plot) != ".svg" {
		return "", fmt.Errorf("plot path %q is not an .svg file inside the run directory", r.Plot)
	}
	data, err := runfile.ReadIn(runDir, r.Plot)
	if err != nil {
		return "", fmt.Errorf("inline plot: %w", err)
	}
	return template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(data)), nil
}

const htmlTemplate = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<title>Qualification report — run {{.RunID}}</title>
<style>
body{font-family:sans-serif;margin:2em;max-width:80em;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:0.25em 0.6em;text-align:left;vertical-align:top}
td.fails{min-width:18em;max-width:32em;overflow-wrap:anywhere}
th{background:#f2f2f2}
.light{display:inline-block;width:0.9em;height:0.9em;border-radius:50%;border:1px solid #555;vertical-align:middle}
.green{background:#2ca02c}.yellow{background:#e6c619}.red{background:#d62728}.white{background:#fff}
.verdict{font-size:1.4em;font-weight:bold}
.testbuild{background:#d62728;color:#fff;padding:0.5em 0.8em;font-size:1.2em}
img.plot{max-width:42em;display:block}
</style></head><body>
<h1>Qualification report — run {{.RunID}}</h1>
{{with banner}}<p class="testbuild" id="testbuild"><strong>{{.}}.</strong> Its binaries were built with a test-only flag that changes what they do; nothing in this run qualifies a checkpoint.</p>{{end}}
<p class="verdict" id="verdict">Verdict: {{verdict}}</p>
{{with scope}}<p id="scope">{{.}}</p>{{end}}
<table id="stages"><tr><th>stage</th><th>status</th><th>counted rows qualified (of the target's)</th><th>rows run (of the target's)</th><th>failures</th></tr>
{{range .Stages}}<tr><td>{{.Number}} <code>{{.Stage}}</code></td><td>{{upper .Status}}</td><td>{{counts .}}</td><td>{{rowsRun .}}</td><td>{{failedCount .}}</td></tr>
{{end}}</table>
{{with failing}}<div id="failing"><p><strong>Failing rows</strong> (the first failure of each, and what to do):</p><ul>
{{range .}}<li><a href="#row-{{.Stage}}-{{.Profile}}"><code>{{.Stage}}/{{.Profile}}</code></a>: {{.First}}<br><small>What to do: {{.Hint}} (<a href="{{.Folder}}">the row's folder</a>)</small></li>
{{end}}</ul></div>{{end}}
<p>Target <code>{{.Target}}</code> ({{.TargetKind}}). Hardware: {{.Hardware.CPU}}, {{.Hardware.Cores}} cores, GPU: {{.Hardware.GPU}}.</p>
<p>Lights: <span class="light green"></span> reached what its kind can reach (counted: aiperf-qualified; reduced or variant: family-validated) ·
<span class="light yellow"></span> counted row stopped short without a failing claim ·
<span class="light red"></span> a claim failed · <span class="light white"></span> nothing claimed (planned, excluded, blocked).</p>
{{range $stage := .Stages}}
<h2 id="stage-{{.Stage}}">Stage {{.Number}} (<code>{{.Stage}}</code>): {{upper .Status}}</h2>
{{if .Reason}}<p>{{.Reason}}</p>{{end}}
{{if .Results}}<table class="rows"><tr><th></th><th>profile</th><th>checkpoint</th><th>kind</th><th>counted</th><th>status</th><th>gate</th><th>join</th>
<th>client p50 / p95 ms</th><th>Task p50 / p95 ms</th><th>client − Task p50 ms</th><th>throughput</th><th>RTF or images/s</th><th>failures</th></tr>
{{range failedFirst .Results}}<tr class="row" id="row-{{$stage.Stage}}-{{.Profile}}" data-profile="{{.Profile}}"><td><span class="light {{light .}}" title="{{light .}}"></span></td>
<td>{{.Profile}}</td><td>{{checkpoint .Checkpoint .Revision}}</td><td>{{.Kind}}</td><td>{{if .Counted}}yes{{else}}no{{end}}</td><td>{{.Status}}</td>
<td>{{gate .}}{{if .Gate}}<br><small>{{range kv .Gate.Figures}}{{.}}<br>{{end}}</small>{{end}}</td><td>{{join .}}</td>
{{with perf .}}<td>{{.ClientP50}} / {{.ClientP95}}</td><td>{{.TaskP50}} / {{.TaskP95}}</td>
<td>{{.Overhead}}</td><td>{{.Throughput}}</td><td>{{.Rate}}</td>{{end}}<td class="fails">{{fails .}}</td></tr>
{{if .Skipped}}<tr class="skipped" data-profile="{{.Profile}}"><td></td><td colspan="13" class="fails"><small>{{range skipped .}}{{.}}<br>{{end}}</small></td></tr>
{{end}}{{end}}{{range gaps .}}<tr class="gap"><td><span class="light white" title="gap"></span></td><td>—</td><td>{{checkpoint .Checkpoint .Revision}}</td><td>gap</td><td>no</td>
<td>not qualified</td><td>—</td><td>—</td><td>—</td><td>—</td><td>—</td><td>—</td><td>—</td><td class="fails">{{.Reason}}</td></tr>
{{end}}</table>
{{range .Results}}{{if .Statement}}<p><strong>Note ({{.Profile}}):</strong> {{.Statement}}.</p>{{end}}{{end}}
{{if nocacheRows .Results}}<table class="nocache"><tr>{{range nocacheHead}}<th>{{.}}</th>{{end}}</tr>
{{range .Results}}{{if .NoCache}}<tr data-profile="{{.Profile}}"><td>{{.Profile}}</td>{{range nocache .NoCache}}<td class="fails">{{.}}</td>{{end}}</tr>{{end}}{{end}}</table>{{end}}
{{range .Results}}{{if .Plot}}<figure><img class="plot" alt="latency of {{.Profile}}" src="{{plotURI .}}"><figcaption>{{.Profile}}: client latency vs Task call</figcaption></figure>{{end}}{{$p := .Profile}}{{range $i, $uri := timelines .}}<figure><img class="plot timeline" alt="timeline of {{$p}}, AIPerf run {{inc $i}}" src="{{$uri}}"><figcaption>{{$p}}: AIPerf run {{inc $i}} seen from the server (queue, Task, warmup, failures)</figcaption></figure>{{end}}{{with .ServerMetrics}}<p class="server-metrics">{{$p}}: AIPerf's scrape of the server's /metrics:{{range $i, $f := .}} <a href="{{$f}}">run {{inc $i}}</a>{{end}}</p>{{end}}{{end}}
{{end}}
{{if .Audit}}<h3>Capability audit</h3><table><tr><th>profile</th><th>family</th><th>task string</th><th>audio_text_to_text</th></tr>
{{range .Audit}}<tr><td>{{.Profile}}</td><td>{{.Family}}</td><td>{{.TaskString}}</td><td>{{if .Has}}yes{{else}}no{{end}}</td></tr>{{end}}</table>{{end}}
{{end}}
</body></html>
`
