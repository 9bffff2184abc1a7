package doc

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// hostile are strings a run's evidence could carry (a failure message, a profile name, a
// path): markup, Markdown syntax, line breaks, a script URL.
func hostile() []string {
	return []string{
		"plain", "<script>alert(1)</script>", `"><img src=x onerror=alert(1)>`, "a | b \\| c", "line one\nline two\r\n- not a bullet",
		"`tick` and ``two``", "**not bold** *nor em*", "[link](javascript:alert(1))", "# not a heading", "&amp; &lt;", "",
	}
}

// docWith puts s in every place a document holds text or a path.
func docWith(s string) Document {
	return Document{Title: s, Blocks: []Block{
		Section{ID: s, Title: T(s).Code(s), Blocks: []Block{
			Paragraph{ID: s, Role: s, Text: T(s).Strong(s).Emph(s).Link(s, s).CodeLink(s, "#"+s).Light(s)},
			List{Items: []Item{{Text: T(s), Sub: []Text{C(s)}}}},
			Table{ID: s, Class: s, Header: []string{"a", "b"}, Rows: []Row{{ID: s, Class: s, Cells: []Text{T(s), C(s)}}}},
			Figures{Items: []Figure{{Src: "ok.svg", Alt: s, SVG: []byte(`<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="x"><rect width="1" height="1"/></svg>`), Caption: T(s), Class: s}}},
			Details{Summary: T(s), Blocks: []Block{Paragraph{Text: T(s)}}},
		}},
	}}
}

// Whatever the data, the page has only the elements the renderer writes, links only inside
// the run or the page, and shows the data as text.
func TestHTMLShowsDataAsText(t *testing.T) {
	allowed := map[string]bool{"html": true, "head": true, "body": true, "meta": true, "title": true, "style": true, "h1": true, "h2": true,
		"section": true, "p": true, "strong": true, "em": true, "code": true, "a": true, "span": true, "ul": true, "li": true, "div": true,
		"table": true, "tbody": true, "tr": true, "th": true, "td": true, "figure": true, "svg": true, "rect": true, "figcaption": true, "details": true, "summary": true}
	for _, s := range hostile() {
		page := HTML(docWith(s))
		root, err := html.Parse(bytes.NewReader(page))
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		var walk func(*html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.ElementNode {
				if !allowed[n.Data] {
					t.Errorf("%q: the page has a <%s> element", s, n.Data)
				}
				for _, a := range n.Attr {
					if strings.HasPrefix(a.Key, "on") || a.Key == "href" && !safeHref(a.Val) || a.Key == "src" && !strings.HasPrefix(a.Val, "data:image/") {
						t.Errorf("%q: attribute %s=%q", s, a.Key, a.Val)
					}
				}
			}
			if n.Type == html.TextNode && n.Parent != nil && n.Parent.Data != "style" {
				texts = append(texts, n.Data)
			}
			for k := n.FirstChild; k != nil; k = k.NextSibling {
				walk(k)
			}
		}
		walk(root)
		if want := strings.ReplaceAll(s, "\r\n", "\n"); s != "" && !strings.Contains(strings.Join(texts, ""), want) { // HTML reads CRLF as LF
			t.Errorf("%q is not shown as text", s)
		}
	}
}

// Whatever the data, every table row of the Markdown keeps its cells and every list item its
// line: a pipe is escaped, a line break becomes a space, a "<" cannot open a tag.
func TestMarkdownKeepsItsStructure(t *testing.T) {
	for _, s := range hostile() {
		md := Markdown(docWith(s))
		var rows, items int
		for _, line := range strings.Split(md, "\n") {
			if strings.HasPrefix(line, "|") {
				rows++
				if n := strings.Count(line, "|") - strings.Count(line, `\|`); n != 3 {
					t.Errorf("%q: a table row with %d cell borders, want 3: %s", s, n, line)
				}
			}
			if strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "  - ") {
				items++
			}
			if bare := regexp.MustCompile("`[^`]*`").ReplaceAllString(line, ""); strings.Contains(bare, "<script") || strings.Contains(bare, "<img") { // a code span shows markup as text
				t.Errorf("%q: raw markup in %s", s, line)
			}
		}
		if rows != 3 || items != 2 {
			t.Errorf("%q: %d table lines (want 3) and %d list items (want 2):\n%s", s, rows, items, md)
		}
	}
}

// A link leaves neither the page nor the run directory.
func TestSafeHref(t *testing.T) {
	for h, want := range map[string]bool{"#row-asr-x": true, "asr/x/": true, "asr/x/latency.svg": true, "": false, "../x": false, "/etc/passwd": false,
		"javascript:alert(1)": false, "https://example.com": false, "a/../../x": false, "//host/x": false, "a\nb": false, `a\b`: false} {
		if got := safeHref(h); got != want {
			t.Errorf("safeHref(%q) = %v, want %v", h, got, want)
		}
	}
}

// Prose reads the source's own marks; an unclosed mark stays a character.
func TestProse(t *testing.T) {
	got := Prose("a `c` **b** *e* 5 * 3")
	want := Text{{Text: "a "}, {Kind: Code, Text: "c"}, {Text: " "}, {Kind: Strong, Text: "b"}, {Text: " "}, {Kind: Emph, Text: "e"}, {Text: " 5 "}, {Text: "* 3"}}
	if len(got) != len(want) {
		t.Fatalf("%+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("span %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// Rebase points links into the run from elsewhere, and nothing else: a place in the page and a
// figure (written beside the rendering) stay; a link the run's data made unsafe stays dropped.
func TestRebaseMovesOnlyRunLinks(t *testing.T) {
	d := Document{Title: "t", Blocks: []Block{
		Paragraph{Text: Text{}.Link("scrape", "a/b.json").Link("row", "#row-a").Link("plot", "figures/a.svg").Link("out", "../../etc/passwd")},
		Figures{Items: []Figure{{Src: "figures/a.svg", SVG: []byte("<svg></svg>"), Caption: T("c")}}},
	}}
	Rebase(d, "../run/")
	page, md := string(HTML(d)), Markdown(d)
	for _, want := range []string{`href="../run/a/b.json"`, `href="#row-a"`, `href="figures/a.svg"`} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %s:\n%s", want, page)
		}
	}
	for _, want := range []string{"(../run/a/b.json)", "(figures/a.svg)"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %s:\n%s", want, md)
		}
	}
	if strings.Contains(page+md, "passwd)") || strings.Contains(page, "passwd\"") {
		t.Errorf("a link out of the run was written:\n%s\n%s", page, md)
	}
}
