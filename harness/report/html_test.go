package report

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

func TestRowLights(t *testing.T) {
	for _, tc := range []struct {
		r    evidence.Result
		want Light
	}{
		{evidence.Result{Status: "aiperf-qualified", Counted: true}, Green},
		{evidence.Result{Status: "family-validated", Kind: "reduced"}, Green},
		{evidence.Result{Status: "family-validated", Counted: true}, Yellow},
		{evidence.Result{Status: "failed", Counted: true}, Red},
		{evidence.Result{Status: "failed"}, Red},
		{evidence.Result{Status: "planned", Counted: true}, White},
		{evidence.Result{Status: "excluded"}, White},
	} {
		if got := RowLight(tc.r); got != tc.want {
			t.Errorf("%+v: light %s, want %s", tc.r, got, tc.want)
		}
	}
}

// TestHTMLReportInChromium opens report.html in Debian's headless chromium (installed by
// `make deps`): the page must render with no console error or exception, show the verdict and
// every result row, and draw every inline picture.
func TestHTMLReportInChromium(t *testing.T) {
	dir := t.TempDir()
	e := sampleRun()
	withTimeline(&e.Stages[0].Results[0])
	if err := os.WriteFile(filepath.Join(dir, "report.html"), HTML(e, picturesOf(e)), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, problems := openInChromium(t, filepath.Join(dir, "report.html"))
	verdict, err := chromedp.Run(ctx, chromedp.Text("#verdict"))
	if err != nil {
		t.Fatal(err)
	}
	rows := evalInt(t, ctx, `document.querySelectorAll("tr.row").length`)
	plotsLoaded := evalInt(t, ctx, `Array.from(document.querySelectorAll("figure svg")).filter(s => s.getBBox().width > 0).length`)
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("QUAL_PLOT_OUT"); out != "" { // to look at it
		_ = os.WriteFile(filepath.Join(out, "report.png"), shot, 0o644)
	}
	if p := problems(); len(p) > 0 {
		t.Errorf("report.html logged problems: %s", strings.Join(p, "; "))
	}
	if verdict != "Verdict: PARTIAL" {
		t.Errorf("verdict %q", verdict)
	}
	if want := len(e.Stages[0].Results); rows != want {
		t.Errorf("%d rows shown, want %d", rows, want)
	}
	if plotsLoaded != 2 { // the latency plot and the run's timeline
		t.Errorf("%d plots loaded, want 2", plotsLoaded)
	}
	if len(shot) < 10_000 {
		t.Errorf("screenshot of %d bytes: the page did not render", len(shot))
	}
}

// openInChromium loads a page in Debian's headless chromium (installed by `make deps`) in a
// 1280 × 1000 window; problems returns what the page logged as an error or warning so far
// (console, exceptions, resource errors, Content-Security-Policy violations).
func openInChromium(t *testing.T, page string) (ctx context.Context, problems func() []string) {
	t.Helper()
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is not installed (make deps installs Debian's chromium): %v", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
		chromedp.Flag("headless", "new"), chromedp.WindowSize(1280, 1000))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancelTimeout)

	var mu sync.Mutex
	var seen []string
	note := func(p string) { mu.Lock(); seen = append(seen, p); mu.Unlock() }
	err = chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				note("console " + string(ev.Type))
			}
		case *runtime.EventExceptionThrown:
			note("exception: " + ev.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded: // resource errors and Content-Security-Policy violations
			if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
				note(string(ev.Entry.Source) + ": " + ev.Entry.Text)
			}
		}
	})
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitReady("body")); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return ctx, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), seen...) }
}

// evalInt is the number a script gives in the page.
func evalInt(t *testing.T, ctx context.Context, js string) int {
	t.Helper()
	return eval[int](t, ctx, js)
}

func evalFloat(t *testing.T, ctx context.Context, js string) float64 {
	t.Helper()
	return eval[float64](t, ctx, js)
}

// eval is the value of a JavaScript expression in the page.
func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatal(err)
	}
	return v
}
