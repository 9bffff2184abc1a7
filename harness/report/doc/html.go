package doc

import (
	"fmt"
	"html"
	"path"
	"strings"
)

// HTML renders d as one self-contained page: no script, no external resource (its
// Content-Security-Policy allows inline styles and data: images only), every figure an inline
// SVG, laid out for a 1280 px screen: a wide table scrolls inside its own box, never the page.
func HTML(d Document) []byte {
	var w htmlWriter
	fmt.Fprintf(&w.b, htmlHead, esc(d.Title), esc(d.Title))
	w.blocks(d.Blocks, 2)
	w.b.WriteString("</body></html>\n")
	return []byte(w.b.String())
}

const htmlHead = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<title>%s</title>
<style>
*{box-sizing:border-box}
body{font-family:sans-serif;margin:0 auto;padding:1em 1.5em;max-width:88em;color:#222;line-height:1.4}
.wide{overflow-x:auto;max-width:100%%;margin:0.5em 0 1.5em}
table{border-collapse:collapse}
th,td{border:1px solid #ccc;padding:0.25em 0.5em;text-align:left;vertical-align:top;overflow-wrap:break-word;max-width:36em}
th{background:#f2f2f2}
code{overflow-wrap:anywhere}
p,li{max-width:100%%;overflow-wrap:anywhere}
.light{display:inline-block;width:0.9em;height:0.9em;border-radius:50%%;border:1px solid #555;vertical-align:middle;margin-right:0.3em}
.lightword{white-space:nowrap}
.light.green{background:#2ca02c}.light.yellow{background:#e6c619}.light.red{background:#d62728}.light.white{background:#fff}
.verdict{font-size:1.4em}
.banner{background:#d62728;color:#fff;padding:0.5em 0.8em;font-size:1.2em}
.figures{display:flex;flex-wrap:wrap;gap:1em;margin:0.5em 0 1.5em}
figure{margin:0;max-width:100%%}
figure svg{display:block;max-width:100%%;height:auto}
figcaption{font-size:0.9em;color:#555}
details{margin:0.5em 0 1em}
summary{cursor:pointer}
</style></head><body>
<h1>%s</h1>
`

type htmlWriter struct {
	b strings.Builder
}

func (w *htmlWriter) blocks(blocks []Block, level int) {
	for _, blk := range blocks {
		switch x := blk.(type) {
		case Section:
			h := min(level, 6)
			fmt.Fprintf(&w.b, "<section%s><h%d>%s</h%d>\n", attr("id", x.ID), h, inlineHTML(x.Title), h)
			w.blocks(x.Blocks, level+1)
			w.b.WriteString("</section>\n")
		case Paragraph:
			fmt.Fprintf(&w.b, "<p%s%s>%s</p>\n", attr("class", x.Role), attr("id", x.ID), inlineHTML(x.Text))
		case List:
			w.list(x)
		case Table:
			w.table(x)
		case Figures:
			w.figures(x)
		case Details:
			fmt.Fprintf(&w.b, "<details><summary>%s</summary>\n", inlineHTML(x.Summary))
			w.blocks(x.Blocks, level)
			w.b.WriteString("</details>\n")
		}
	}
}

func (w *htmlWriter) list(l List) {
	w.b.WriteString("<ul>\n")
	for _, it := range l.Items {
		w.b.WriteString("<li>" + inlineHTML(it.Text))
		if len(it.Sub) > 0 {
			w.b.WriteString("<ul>")
			for _, s := range it.Sub {
				w.b.WriteString("<li>" + inlineHTML(s) + "</li>")
			}
			w.b.WriteString("</ul>")
		}
		w.b.WriteString("</li>\n")
	}
	w.b.WriteString("</ul>\n")
}

func (w *htmlWriter) table(t Table) {
	fmt.Fprintf(&w.b, "<div class=\"wide\"><table%s%s>\n<tr>", attr("class", t.Class), attr("id", t.ID))
	for _, h := range t.Header {
		w.b.WriteString("<th>" + esc(h) + "</th>")
	}
	w.b.WriteString("</tr>\n")
	for _, r := range t.Rows {
		fmt.Fprintf(&w.b, "<tr%s%s>", attr("class", r.Class), attr("id", r.ID))
		for _, c := range r.Cells {
			w.b.WriteString("<td>" + inlineHTML(c) + "</td>")
		}
		w.b.WriteString("</tr>\n")
	}
	w.b.WriteString("</table></div>\n")
}

// figures writes each picture inline: an SVG the report drew (harness/report/chart escapes
// every text it holds), never a file read from the run.
func (w *htmlWriter) figures(f Figures) {
	w.b.WriteString("<div class=\"figures\">\n")
	for _, fig := range f.Items {
		fmt.Fprintf(&w.b, "<figure%s%s>\n%s<figcaption>%s</figcaption></figure>\n",
			attr("class", fig.Class), attr("data-src", fig.Src), fig.SVG, inlineHTML(fig.Caption))
	}
	w.b.WriteString("</div>\n")
}

func inlineHTML(t Text) string {
	var b strings.Builder
	for _, s := range t {
		out := htmlSpan(s.Kind, esc(s.Text))
		if s.Href != "" && safeHref(s.Href) {
			out = fmt.Sprintf("<a href=\"%s\">%s</a>", esc(s.href()), out)
		}
		b.WriteString(out)
	}
	return b.String()
}

func htmlSpan(k Kind, text string) string {
	switch k {
	case Code:
		return "<code>" + text + "</code>"
	case Strong:
		return "<strong>" + text + "</strong>"
	case Emph:
		return "<em>" + text + "</em>"
	case Light:
		return fmt.Sprintf("<span class=\"lightword\"><span class=\"light %s\" title=\"%s\"></span>%s</span>", text, text, text)
	default:
		return text
	}
}

// safeHref admits a place in the page or a path inside the run directory: a report links
// nothing else, so a run's data cannot make it link a javascript: or remote URL.
func safeHref(h string) bool {
	if strings.HasPrefix(h, "#") {
		return true
	}
	clean := path.Clean(h)
	return h != "" && !strings.ContainsAny(h, ":\x00\t\n\r\\") && !strings.HasPrefix(clean, "/") && clean != ".." && !strings.HasPrefix(clean, "../")
}

func attr(name, value string) string {
	if value == "" {
		return ""
	}
	return fmt.Sprintf(" %s=\"%s\"", name, esc(value))
}

func esc(s string) string { return html.EscapeString(s) }
