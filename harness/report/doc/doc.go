// Package doc is the report's document model: a typed tree of sections, paragraphs, lists,
// tables, figures and collapsible details, built once from a run's evidence (harness/report)
// and written by two renderers, Markdown and HTML, that add no content of their own. A figure
// carries its picture, an SVG drawn from the run's data (harness/report/chart): the HTML
// renderer writes it inline, the Markdown renderer shows it from its file (Src), which the
// report writes beside qualification.md. This package reads and writes no file.
package doc

import "strings"

// Kind is how a span of text is shown.
type Kind int

// The kinds of span.
const (
	Plain  Kind = iota
	Code        // `x` / <code>
	Strong      // **x** / <strong>
	Emph        // *x* / <em>
	Light       // a row's traffic light: its word in Markdown, a coloured dot and the word in HTML
)

// Span is a run of text of one kind, a link when it has an Href: a path inside the run
// directory, or "#id", a place in report.html (plain text in Markdown, which has no such ids).
type Span struct {
	Kind Kind
	Text string
	Href string
	base string // where the run's files are from the rendered file (Rebase); never from the run's data
}

// href is where the link points from the rendered file.
func (s Span) href() string { return s.base + s.Href }

// Text is inline content: spans in order.
type Text []Span

// T is plain text.
func T(s string) Text { return Text{{Kind: Plain, Text: s}} }

// C is code.
func C(s string) Text { return Text{{Kind: Code, Text: s}} }

// Plain appends plain text.
func (t Text) Plain(s string) Text { return append(t, Span{Kind: Plain, Text: s}) }

// Code appends code.
func (t Text) Code(s string) Text { return append(t, Span{Kind: Code, Text: s}) }

// Strong appends strong text.
func (t Text) Strong(s string) Text { return append(t, Span{Kind: Strong, Text: s}) }

// Emph appends emphasised text.
func (t Text) Emph(s string) Text { return append(t, Span{Kind: Emph, Text: s}) }

// Link appends a link.
func (t Text) Link(s, href string) Text { return append(t, Span{Kind: Plain, Text: s, Href: href}) }

// CodeLink appends code that is a link.
func (t Text) CodeLink(s, href string) Text { return append(t, Span{Kind: Code, Text: s, Href: href}) }

// Light appends a traffic light named by its colour.
func (t Text) Light(colour string) Text { return append(t, Span{Kind: Light, Text: colour}) }

// Then appends another text.
func (t Text) Then(u Text) Text { return append(t, u...) }

// String is the text a reader sees, without markup.
func (t Text) String() string {
	var b strings.Builder
	for _, s := range t {
		b.WriteString(s.Text)
	}
	return b.String()
}

// Prose parses the report's own fixed sentences, with `code`, **strong** and *emphasis*, into
// Text. It is for text written in the source only: data from a run goes through Plain and
// Code, so a backtick or star in a failure message stays a character.
func Prose(s string) Text {
	var t Text
	for s != "" {
		i := strings.IndexAny(s, "`*")
		if i < 0 {
			return t.Plain(s)
		}
		if i > 0 {
			t = t.Plain(s[:i])
			s = s[i:]
		}
		mark, kind := s[:1], Code
		switch {
		case strings.HasPrefix(s, "**"):
			mark, kind = "**", Strong
		case mark == "*":
			kind = Emph
		}
		end := strings.Index(s[len(mark):], mark)
		if end < 0 {
			return t.Plain(s)
		}
		t = append(t, Span{Kind: kind, Text: s[len(mark) : len(mark)+end]})
		s = s[len(mark)+end+len(mark):]
	}
	return t
}

// Rebase makes d's links into the run's files point from a rendering written outside the run:
// base is the run directory as seen from there (a path ending in "/"). A figure's file is
// written beside the rendering, so links to it stay as they are, as do places in the page.
// The base is the writer's, not the run's data: it is added after the link is checked.
func Rebase(d Document, base string) {
	figures := map[string]bool{}
	walk(d.Blocks, func(t Text) {}, func(f Figure) { figures[f.Src] = true })
	walk(d.Blocks, func(t Text) {
		for i := range t {
			if t[i].Href != "" && !strings.HasPrefix(t[i].Href, "#") && !figures[t[i].Href] {
				t[i].base = base
			}
		}
	}, func(Figure) {})
}

// walk calls text on every text of blocks and figure on every figure, in order.
func walk(blocks []Block, text func(Text), figure func(Figure)) {
	for _, blk := range blocks {
		switch x := blk.(type) {
		case Section:
			text(x.Title)
			walk(x.Blocks, text, figure)
		case Paragraph:
			text(x.Text)
		case List:
			for _, it := range x.Items {
				text(it.Text)
				for _, s := range it.Sub {
					text(s)
				}
			}
		case Table:
			for _, r := range x.Rows {
				for _, c := range r.Cells {
					text(c)
				}
			}
		case Figures:
			for _, f := range x.Items {
				figure(f)
				text(f.Caption)
			}
		case Details:
			text(x.Summary)
			walk(x.Blocks, text, figure)
		}
	}
}

// Block is a piece of a document: one of the types below.
type Block interface{ block() }

// Document is a whole report.
type Document struct {
	Title  string
	Blocks []Block
}

// Section is a heading and what follows it; its level is its depth.
type Section struct {
	ID     string
	Title  Text
	Blocks []Block
}

// Paragraph is one paragraph. Role names what it is for (verdict, banner, scope, note…): the
// HTML renderer gives it an id or class, the Markdown renderer quotes a banner.
type Paragraph struct {
	ID, Role string
	Text     Text
}

// List is a bulleted list; an item may have sub-items.
type List struct {
	Items []Item
}

// Item is one bullet.
type Item struct {
	Text Text
	Sub  []Text
}

// Table is a table with a header row; every row has one cell per column.
type Table struct {
	ID, Class string
	Header    []string
	Rows      []Row
}

// Row is a table row; ID and Class let a page link to it.
type Row struct {
	ID, Class string
	Cells     []Text
}

// Figure is a picture with its caption: SVG is the picture itself, drawn by this program from
// the run's data (never a file of the run), and Src the path, relative to the run directory,
// of the file the report writes it to for the Markdown rendering.
type Figure struct {
	Src, Alt string
	SVG      []byte
	Caption  Text
	Class    string
}

// Figures are figures side by side where there is room.
type Figures struct {
	Items []Figure
}

// Details is content collapsed under a summary until the reader opens it.
type Details struct {
	Summary Text
	Blocks  []Block
}

func (Section) block()   {}
func (Paragraph) block() {}
func (List) block()      {}
func (Table) block()     {}
func (Figures) block()   {}
func (Details) block()   {}

// Paragraph roles the renderers know.
const (
	RoleBanner  = "banner"  // a warning above everything (a test build)
	RoleVerdict = "verdict" // the run's verdict
)
