package doc

import (
	"fmt"
	"strings"
)

// Markdown renders d as GitHub-flavoured Markdown. It is deterministic: the verifier renders
// the evidence again and compares bytes.
func Markdown(d Document) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", mdInline(T(d.Title), false))
	mdBlocks(&b, d.Blocks, 2)
	return b.String()
}

func mdBlocks(b *strings.Builder, blocks []Block, level int) {
	for _, blk := range blocks {
		switch x := blk.(type) {
		case Section:
			fmt.Fprintf(b, "%s %s\n\n", strings.Repeat("#", min(level, 6)), mdInline(x.Title, false))
			mdBlocks(b, x.Blocks, level+1)
		case Paragraph:
			if x.Role == RoleBanner {
				b.WriteString("> ")
			}
			b.WriteString(mdInline(x.Text, false) + "\n\n")
		case List:
			for _, it := range x.Items {
				b.WriteString("- " + mdInline(it.Text, false) + "\n")
				for _, s := range it.Sub {
					b.WriteString("  - " + mdInline(s, false) + "\n")
				}
			}
			b.WriteString("\n")
		case Table:
			mdTable(b, x)
		case Figures:
			for _, f := range x.Items {
				src := "(a figure outside the run directory)"
				if safeHref(f.Src) {
					src = mdDest(f.Src)
				}
				fmt.Fprintf(b, "![%s](%s)\n%s\n\n", mdAlt(f.Alt), src, mdInline(T("").Emph(f.Caption.String()), false))
			}
		case Details:
			fmt.Fprintf(b, "<details><summary>%s</summary>\n\n", mdInline(x.Summary, false))
			mdBlocks(b, x.Blocks, level)
			b.WriteString("</details>\n\n")
		}
	}
}

func mdTable(b *strings.Builder, t Table) {
	b.WriteString("| " + strings.Join(t.Header, " | ") + " |\n|" + strings.Repeat("---|", len(t.Header)) + "\n")
	for _, r := range t.Rows {
		cells := make([]string, len(r.Cells))
		for i, c := range r.Cells {
			cells[i] = mdInline(c, true)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("\n")
}

// mdInline writes spans. Whitespace runs (a failure's newlines) become one space so that data
// never ends a list item or a table row; in a table cell a pipe is escaped.
func mdInline(t Text, cell bool) string {
	var b strings.Builder
	for _, s := range t {
		out := mdSpan(s.Kind, oneSpace(s.Text))
		if s.Href != "" && !strings.HasPrefix(s.Href, "#") && safeHref(s.Href) { // "#id" is a place in report.html only
			out = fmt.Sprintf("[%s](%s)", out, mdDest(s.href()))
		}
		if cell {
			out = strings.ReplaceAll(out, "|", `\|`)
		}
		b.WriteString(out)
	}
	return b.String()
}

func mdSpan(k Kind, text string) string {
	switch k {
	case Code:
		if strings.Contains(text, "`") {
			return "`` " + text + " ``"
		}
		return "`" + text + "`"
	case Strong:
		return "**" + mdText(text) + "**"
	case Emph:
		if text == "" {
			return ""
		}
		return "*" + mdText(text) + "*"
	default:
		return mdText(text)
	}
}

// mdText keeps data from being read as Markdown: a "<" would open an HTML tag, a backtick a
// code span, a star emphasis, "](" a link. (An underscore inside a word, as in gold_wer, is no
// emphasis in GitHub-flavoured Markdown and stays as it is.)
func mdText(s string) string {
	return strings.NewReplacer(`\`, `\\`, "<", "&lt;", "`", "\\`", "*", `\*`, "](", `\](`).Replace(s)
}

func mdAlt(s string) string {
	return mdText(strings.NewReplacer("[", "(", "]", ")").Replace(oneSpace(s)))
}

// mdDest is a link destination; one with spaces or parentheses is written in angle brackets.
func mdDest(href string) string {
	if strings.ContainsAny(href, " ()<>") {
		return "<" + strings.NewReplacer("<", "%3C", ">", "%3E").Replace(href) + ">"
	}
	return href
}

func oneSpace(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s)
}
