package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// A real run's report.html read on a 1280 px screen: nothing wider than the window (a wide
// table scrolls inside its own box), every per-run timeline collapsed until asked for, every
// figure loaded, nothing logged. The measured page height is printed.
func TestRealRunFitsA1280pxScreen(t *testing.T) {
	pics, e := realRun(t)
	t.Run("as published", func(t *testing.T) { fitsA1280pxScreen(t, pics, e) })
	// A failed row whose failure and reproduce command are one unbroken token each: a line,
	// a list item or a cell wraps it rather than widening the page.
	long := strings.Repeat("asr/sphinx-en-us/aiperf/artifacts/profile_runs/run_0001/", 40)
	r := &e.Stages[0].Results[0]
	r.Status, r.Failures, r.Reproduce = "failed", []string{"identity: " + long}, "QUAL_FOCUS="+long
	e.Stages[0].Status = "failed"
	t.Run("a long failure", func(t *testing.T) { fitsA1280pxScreen(t, pics, e) })
}

func fitsA1280pxScreen(t *testing.T, pics Pictures, e evidence.Evidence) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "report.html"), HTML(e, pics), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, problems := openInChromium(t, filepath.Join(dir, "report.html"))
	width := evalInt(t, ctx, `document.documentElement.scrollWidth`)
	viewport := evalInt(t, ctx, `window.innerWidth`)
	height := evalInt(t, ctx, `document.documentElement.scrollHeight`)
	timelines := evalInt(t, ctx, `document.querySelectorAll("svg[aria-label^='timeline of']").length`)
	collapsed := evalInt(t, ctx, `document.querySelectorAll("details:not([open]) svg[aria-label^='timeline of']").length`)
	scrolling := evalInt(t, ctx, `Array.from(document.querySelectorAll(".wide")).filter(d => d.scrollWidth > d.clientWidth).length`)
	latency := evalInt(t, ctx, `document.querySelectorAll("svg[aria-label^='latency of']").length`)
	broken := evalInt(t, ctx, `Array.from(document.querySelectorAll("svg[aria-label^='latency of']")).filter(s => !(s.getBBox().width > 0)).length`)
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(80))
	if err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("QUAL_PLOT_OUT"); out != "" { // to look at it
		_ = os.WriteFile(filepath.Join(out, "report-full-run.png"), shot, 0o644)
	}
	t.Logf("viewport %d px: page %d × %d px, %d tables scrolling in their own box, %d timelines (%d collapsed)", viewport, width, height, scrolling, timelines, collapsed)
	if viewport != 1280 {
		t.Fatalf("the window is %d px wide, want 1280", viewport)
	}
	if width > viewport {
		t.Errorf("the page is %d px wide on a %d px screen: something does not wrap or scroll in its own box", width, viewport)
	}
	if timelines < 20 || collapsed != timelines {
		t.Errorf("%d timelines, %d of them collapsed: every per-run timeline belongs in a closed <details>", timelines, collapsed)
	}
	if latency < 6 || broken > 0 {
		t.Errorf("%d latency figures, %d of them not drawn", latency, broken)
	}
	// Every text of every picture, the collapsed timelines opened, as tall as it renders on this screen.
	smallest := evalFloat(t, ctx, `(() => {
		document.querySelectorAll("details").forEach(d => d.open = true);
		let least = Infinity;
		document.querySelectorAll("figure svg text").forEach(el => {
			const svg = el.ownerSVGElement, scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
			least = Math.min(least, parseFloat(getComputedStyle(el).fontSize) * scale);
		});
		return least;
	})()`)
	t.Logf("smallest text in a picture: %.2f px", smallest)
	if smallest < minPictureTextPx {
		t.Errorf("a picture's text renders %.2f px tall on a 1280 px screen, want at least %d px", smallest, minPictureTextPx)
	}
	if p := problems(); len(p) > 0 {
		t.Errorf("report.html logged problems: %s", strings.Join(p, "; "))
	}
}

// minPictureTextPx is the smallest text a picture may show on a 1280 px screen: below it labels
// are read with a magnifier.
const minPictureTextPx = 11

// No Go value leaks into a report of a real run: a package-qualified name (evidence.Stage), a
// fmt error verb (%!d), a map or struct dump, a nil.
func TestRealRunShowsNoGoValues(t *testing.T) {
	pics, e := realRun(t)
	page := HTML(e, pics)
	text := htmlContent(t, page)
	var all []string
	for _, v := range text {
		all = append(all, v...)
	}
	goValue := regexp.MustCompile(`\b(evidence|timing|schema|stats|inventory|report|doc|join|family|contract|workload|aiperfexport)\.\w+|%!|map\[|&?\{[A-Z]\w*:|<nil>|\bnil\b|0x[0-9a-f]{6,}`)
	fileName := regexp.MustCompile(`\.(json|html|md|txt|svg|png)$`)
	for name, body := range map[string]string{"qualification.md": Markdown(e, nil), "report.html (text)": strings.Join(all, "\n")} {
		var values []string
		for _, m := range goValue.FindAllString(body, -1) {
			if !fileName.MatchString(m) { // evidence.json is a file a report may name
				values = append(values, m)
			}
		}
		if len(values) > 0 {
			t.Errorf("%s shows Go values %q", name, values)
		}
	}
}
