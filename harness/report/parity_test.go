package report

import (
	"bytes"
	"regexp"
	"sort"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/internal/runfixture"
	"github.com/trtmc-qual/trtmc-qual/harness/report/doc"
)

// realRun is a published full `make qualify` run of the reference target (its evidence.json,
// gzipped) with picture data for every measured row (the fixture keeps no exports: its data is
// made up, each row's runs as many as its settings say).
func realRun(t *testing.T) (Pictures, evidence.Evidence) {
	t.Helper()
	e := runfixture.PublishedRun(t)
	pics := picturesOf(e)
	figures := 0
	for _, p := range pics {
		figures += 1 + len(p.Runs)
	}
	if figures < 20 {
		t.Fatalf("the fixture has %d figures; the published run has 6 latency plots and 26 timelines", figures)
	}
	return pics, e
}

// picturesOf is made-up picture data for every measured row of e: four requests, and per AIPerf
// run its settings record a warmup and a queued request.
func picturesOf(e evidence.Evidence) Pictures {
	pics := Pictures{}
	for _, s := range e.Stages {
		for _, r := range s.Results {
			if r.Timing == nil {
				continue
			}
			p := claim.Pictures{ClientMS: []float64{12, 10, 15, 40}, TaskMS: []float64{9, 8, 11, 37}}
			runs, _ := r.Settings["runs"].(float64)
			for range max(1, int(runs)) {
				p.Runs = append(p.Runs, []claim.Span{{ArrivalS: 0, TaskS: 1, EndS: 1.1, Warmup: true}, {ArrivalS: 1.2, QueueS: 0.2, TaskS: 1, EndS: 2.5}})
			}
			pics[PictureKey(s.Stage, r.Profile)] = p
		}
	}
	return pics
}

// content is what a reader finds in a report, rendering aside: its headings, the header of
// each table, every table cell, every figure, every paragraph and list item and every
// collapsed section's summary, each as normalized text.
type content map[string][]string

// report.html and qualification.md of a real run hold the same content: a section, table,
// cell, figure or sentence in one and not in the other fails, named.
func TestBothReportsHoldTheSameContent(t *testing.T) {
	pics, e := realRun(t)
	sameContent(t, pics, e)
	for _, want := range []string{"Over runs", "Accuracy", "Tails", "Reproduce each row", "Inventory", "Formulas"} {
		if !strings.Contains(HTMLText(t, pics, e), want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
}

// What the real run does not show (a failed row, a blocked stage with its audit and probe,
// inputs not sent, a smoke scope, a test build, hostile text) is the same in both too.
func TestBothReportsHoldTheSameContentInEveryState(t *testing.T) {
	e := sampleRun()
	e.Versions = map[string]string{evidence.BuildTagsKey: "qual_slowdown"}
	r := &e.Stages[0].Results[1]
	r.Status, r.Failures = evidence.StatusFailed, []string{"gate: `gold_wer` 0.31 | over\nits bound <0.25> *really*", "join: 2 lost"}
	r.Skipped = []evidence.SkippedInput{{Clip: "long-1", Seconds: 7.1, SampleRate: 16000, Reason: "over 3 s"}}
	e.Stages[0].Status = evidence.StatusFailed
	e.Stages[1].Audit = []evidence.AuditRow{{Profile: "sphinxqa", Family: "qa", TaskString: "audio_qa", Has: false}}
	e.Stages[1].Probe = &evidence.Probe{Model: "m", Route: "/v1/chat/completions", Status: 400, ErrorCode: "unsupported_capability", Message: "no audio", Expected: "400 unsupported_capability", Passed: true}
	e.Stages[0].Selection = evidence.SelectionOf(append(e.Stages[0].Inventory, evidence.InventoryRow{Profile: "sphinx-en-us", Kind: evidence.KindFull, Counted: true},
		evidence.InventoryRow{Profile: "other", Kind: evidence.KindFull, Counted: true}), "smoke")
	sameContent(t, nil, e)
}

// HTMLText is the text of every paragraph, heading and summary of report.html.
func HTMLText(t *testing.T, pics Pictures, e evidence.Evidence) string {
	page := HTML(e, pics)
	c := htmlContent(t, page)
	return strings.Join(append(append(c["paragraph"], c["heading"]...), c["summary"]...), "\n")
}

// sameContent renders e both ways and compares what a reader finds in each.
func sameContent(t *testing.T, pics Pictures, e evidence.Evidence) {
	t.Helper()
	page := HTML(e, pics)
	md, hp := markdownContent(Markdown(e, pics)), htmlContent(t, page)
	for _, kind := range []string{"heading", "table header", "cell", "figure", "paragraph", "list item", "summary"} {
		if len(md[kind]) == 0 && kind != "summary" && kind != "figure" {
			t.Errorf("qualification.md has no %s: the parser or the fixture is wrong", kind)
		}
		onlyMD, onlyHTML := difference(md[kind], hp[kind]), difference(hp[kind], md[kind])
		for _, x := range onlyMD {
			t.Errorf("%s only in qualification.md: %q", kind, x)
		}
		for _, x := range onlyHTML {
			t.Errorf("%s only in report.html: %q", kind, x)
		}
	}
}

// difference is the multiset a − b, sorted.
func difference(a, b []string) []string {
	left := map[string]int{}
	for _, x := range b {
		left[x]++
	}
	var out []string
	for _, x := range a {
		if left[x] > 0 {
			left[x]--
			continue
		}
		out = append(out, x)
	}
	sort.Strings(out)
	return out
}

func norm(s string) string { return strings.Join(strings.Fields(s), " ") }

// mdPlain is a Markdown span's text as a viewer shows it: backslash escapes resolved, links,
// code, strong and emphasis marks dropped.
func mdPlain(s string) string {
	escaped := map[rune]rune{}
	s = regexp.MustCompile("\\\\[\\\\`*\\[\\]|]").ReplaceAllStringFunc(s, func(m string) string {
		r := rune(0xE000 + len(escaped)) // a private-use stand-in no markup rule touches
		escaped[r] = rune(m[1])
		return string(r)
	})
	s = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(s, "$1")
	s = strings.NewReplacer("``", "", "`", "", "**", "", "&lt;", "<", "<details><summary>", "", "</summary>", "").Replace(s)
	s = regexp.MustCompile(`(^|[\s(])\*([^*\s][^*]*)\*`).ReplaceAllString(s, "$1$2")
	s = strings.Map(func(r rune) rune {
		if x, ok := escaped[r]; ok {
			return x
		}
		return r
	}, s)
	return norm(s)
}

// markdownContent parses qualification.md as GitHub renders it, for the kinds of block the
// reports write.
func markdownContent(md string) content {
	c := content{}
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case line == "" || line == "</details>":
		case strings.HasPrefix(line, "#"):
			c["heading"] = append(c["heading"], mdPlain(strings.TrimLeft(line, "# ")))
		case strings.HasPrefix(line, "<details><summary>"):
			c["summary"] = append(c["summary"], mdPlain(line))
		case strings.HasPrefix(line, "|"):
			c["table header"] = append(c["table header"], strings.Join(mdCells(line), " | "))
			for i += 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
				c["cell"] = append(c["cell"], mdCells(lines[i])...)
			}
		case strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "  - "):
			c["list item"] = append(c["list item"], mdPlain(strings.TrimLeft(line, " -")))
		case strings.HasPrefix(line, "!["):
			m := regexp.MustCompile(`^!\[([^\]]*)\]\(([^)]*)\)$`).FindStringSubmatch(line)
			if m != nil {
				c["figure"] = append(c["figure"], m[1]+" @ "+m[2])
			}
			if i+1 < len(lines) && lines[i+1] != "" { // the caption
				i++
				c["figure"] = append(c["figure"], "caption: "+mdPlain(lines[i]))
			}
		default:
			c["paragraph"] = append(c["paragraph"], mdPlain(strings.TrimPrefix(line, "> ")))
		}
	}
	return c
}

// mdCells splits a table row at its unescaped pipes.
func mdCells(line string) []string {
	line = strings.TrimSpace(line)
	line = line[1 : len(line)-1] // the row's outer pipes
	var cells []string
	var cell strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cell.WriteString(`\|`)
			i++
		case line[i] == '|':
			cells = append(cells, mdPlain(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(line[i])
		}
	}
	return append(cells, mdPlain(cell.String()))
}

// htmlContent parses report.html with an HTML5 parser, as a browser does.
func htmlContent(t *testing.T, page []byte) content {
	t.Helper()
	root, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	c := content{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "h1", "h2", "h3", "h4", "h5", "h6":
				c["heading"] = append(c["heading"], norm(textOf(n, "")))
			case "tr":
				var cells []string
				header := false
				for k := n.FirstChild; k != nil; k = k.NextSibling {
					if k.Type == html.ElementNode && (k.Data == "th" || k.Data == "td") {
						header = header || k.Data == "th"
						cells = append(cells, norm(textOf(k, "")))
					}
				}
				if header {
					c["table header"] = append(c["table header"], strings.Join(cells, " | "))
				} else {
					c["cell"] = append(c["cell"], cells...)
				}
				return
			case "figure":
				c["figure"] = append(c["figure"], svgLabel(n)+" @ "+attrOf(n, "data-src"))
			case "figcaption":
				c["figure"] = append(c["figure"], "caption: "+norm(textOf(n, "")))
				return
			case "p":
				c["paragraph"] = append(c["paragraph"], norm(textOf(n, "")))
				return
			case "li":
				c["list item"] = append(c["list item"], norm(textOf(n, "ul")))
			case "summary":
				c["summary"] = append(c["summary"], norm(textOf(n, "")))
				return
			}
		}
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			walk(k)
		}
	}
	walk(root)
	return c
}

// textOf is a node's text, leaving out the elements named skip (a list item's sub-list).
func textOf(n *html.Node, skip string) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		if k.Type == html.ElementNode && k.Data == skip {
			continue
		}
		b.WriteString(textOf(k, skip))
	}
	return b.String()
}

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// Every table the document holds, for a real run, a small one and a failing one, has a header
// and rows of exactly one cell per column, and every section and figure is named: what both
// renderers rely on.
func TestEveryTableIsRectangular(t *testing.T) {
	_, real := realRun(t)
	failing := sampleRun()
	failing.Stages[0].Results[0].Status, failing.Stages[0].Results[0].Failures = evidence.StatusFailed, []string{"join: 1 | 2\nrecords"}
	for name, e := range map[string]evidence.Evidence{"real run": real, "sample": sampleRun(), "failing": failing} {
		tables := 0
		var walk func(where string, blocks []doc.Block)
		walk = func(where string, blocks []doc.Block) {
			for _, b := range blocks {
				switch x := b.(type) {
				case doc.Section:
					if x.Title.String() == "" || x.ID == "" {
						t.Errorf("%s: a section in %s without a title or id", name, where)
					}
					walk(x.Title.String(), x.Blocks)
				case doc.Details:
					walk(where+" / "+x.Summary.String(), x.Blocks)
				case doc.Table:
					tables++
					if len(x.Header) == 0 || len(x.Rows) == 0 {
						t.Errorf("%s: %s has a table of %d columns and %d rows", name, where, len(x.Header), len(x.Rows))
					}
					for _, r := range x.Rows {
						if len(r.Cells) != len(x.Header) {
							t.Errorf("%s: %s: a row of %d cells under %d columns %q", name, where, len(r.Cells), len(x.Header), x.Header)
						}
					}
				case doc.Figures:
					for _, f := range x.Items {
						if f.Src == "" || f.Alt == "" || len(f.SVG) == 0 || f.Caption.String() == "" {
							t.Errorf("%s: %s: a figure without a path, alt text or caption: %+v", name, where, f)
						}
					}
				}
			}
		}
		walk("the verdict", Build(e, picturesOf(e)).Blocks)
		if tables < 2 {
			t.Errorf("%s: %d tables", name, tables)
		}
	}
}

// svgLabel is the aria-label of the picture inside a figure: what it shows, for a reader who
// cannot see it (the Markdown rendering's alt text).
func svgLabel(figure *html.Node) string {
	for k := figure.FirstChild; k != nil; k = k.NextSibling {
		if k.Type == html.ElementNode && k.Data == "svg" {
			return attrOf(k, "aria-label")
		}
	}
	return ""
}
