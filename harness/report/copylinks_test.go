package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// A report rendered outside its run (`qual report -o DIR`) links the same files as the one
// rendered inside it: every link of report.html and qualification.md, wherever the copy is
// written (beside the run, inside it, far from it), resolves from the copy to the file the
// in-place report links. The run holds every file its report links (each scrape, a failed
// row's folder).
func TestEveryLinkOfACopyResolves(t *testing.T) {
	_, e := realRun(t) // the pictures are drawn from the run's exports, which it has none of
	r := &e.Stages[0].Results[0]
	r.Status, r.Failures = "failed", []string{"identity: wrong answer"} // a failed row links its folder
	e.Stages[0].Status = "failed"
	root := t.TempDir()
	run := filepath.Join(root, "runs", "run-1")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	inPlace := links(t, e, run)
	if len(inPlace) < 10 {
		t.Fatalf("the report links %d files; the fixture's has a scrape per AIPerf run", len(inPlace))
	}
	for _, l := range inPlace {
		target := filepath.Join(run, filepath.FromSlash(strings.TrimSuffix(l, "/")))
		if strings.HasPrefix(l, FigureDir+"/") {
			continue // written by the report
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(l, "/") {
			err := os.MkdirAll(target, 0o755)
			if err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(target, []byte(l), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	renderLinks(t, e, run, run) // every link of the run's own report resolves
	for name, out := range map[string]string{"beside": filepath.Join(root, "runs", "copy"), "far": filepath.Join(root, "a", "b", "c"), "inside": filepath.Join(run, "rendered")} {
		t.Run(name, func(t *testing.T) {
			if got := renderLinks(t, e, run, out); len(got) != len(inPlace) {
				t.Errorf("the copy has %d links, the run's report %d", len(got), len(inPlace))
			}
		})
	}
}

// links are the file links of e's report rendered into run, the files not there yet.
func links(t *testing.T, e evidence.Evidence, run string) []string {
	t.Helper()
	return hrefs(t, HTML(e, LoadPictures(run, e)))
}

// renderLinks renders e from run into out and returns the links of report.html, after checking
// that every link of both files resolves from out to a file that exists (a figure to out's own).
func renderLinks(t *testing.T, e evidence.Evidence, run, out string) []string {
	t.Helper()
	var err error
	if run == out {
		err = Write(run, e)
	} else {
		err = WriteCopy(run, out, e)
	}
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, "qualification.md"))
	if err != nil {
		t.Fatal(err)
	}
	links := map[string][]string{"report.html": hrefs(t, page), "qualification.md": mdLinks(md)}
	if len(links["report.html"]) != len(links["qualification.md"]) {
		t.Errorf("report.html has %d file links, qualification.md %d", len(links["report.html"]), len(links["qualification.md"]))
	}
	for file, ls := range links {
		for _, l := range ls {
			if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(l))); err != nil {
				t.Errorf("%s rendered into %s links %q, which does not resolve: %v", file, out, l, err)
			}
		}
	}
	return links["report.html"]
}

// hrefs are the page's links to files (not to places in the page).
func hrefs(t *testing.T, page []byte) []string {
	root, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "a" {
			if h := attrOf(n, "href"); !strings.HasPrefix(h, "#") {
				out = append(out, h)
			}
		}
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			walk(k)
		}
	}
	walk(root)
	return out
}

// mdLinks are the Markdown's link and image destinations, images left out (figures are
// pictures, not links, in report.html).
func mdLinks(md []byte) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(!?)\[[^\]]*\]\(<?([^)>]+)>?\)`).FindAllSubmatch(md, -1) {
		if string(m[1]) == "" {
			out = append(out, string(m[2]))
		}
	}
	return out
}
