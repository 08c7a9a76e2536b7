package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/harness9/harness9/internal/lib/mdtable"
)

// markdown renders completed assistant messages for the terminal. It
// parses CommonMark with goldmark and draws the tree with Lip Gloss styles
// itself. It has no syntax highlighting and leaves goldmark's extension
// package out: a highlighter's lexer and style tables, and the extension
// package's link regexps, cost tens of milliseconds of package
// initialisation in every harness9 process (`version` and `run --json`
// included). GitHub tables are drawn from the paragraph they parse as;
// task lists and strikethrough show as typed. Code is shown verbatim, so it
// can be copied from the transcript.
type markdown struct {
	md goldmark.Markdown
}

func newMarkdown() *markdown {
	return &markdown{md: goldmark.New()}
}

var (
	mdHeading = lipgloss.NewStyle().Foreground(colAccent).Bold(true)
	mdCode    = lipgloss.NewStyle().Foreground(lipgloss.Color("215"))
	mdBlock   = lipgloss.NewStyle().Foreground(lipgloss.Color("252"))
	mdLink    = lipgloss.NewStyle().Foreground(lipgloss.Color("75")).Underline(true)
	mdItalic  = lipgloss.NewStyle().Italic(true)
)

// render returns s as terminal lines at most width cells wide.
func (m *markdown) render(s string, width int) []string {
	src := []byte(s)
	doc := m.md.Parser().Parse(text.NewReader(src))
	r := &mdWriter{src: src}
	r.children(doc, "  ", "  ", max(width, 12), true)
	return trimBlankEdges(r.out)
}

// mdWriter accumulates the rendered lines of one document.
type mdWriter struct {
	src []byte
	out []string
}

// blank separates blocks by one empty line.
func (w *mdWriter) blank() {
	if len(w.out) > 0 && w.out[len(w.out)-1] != "" {
		w.out = append(w.out, "")
	}
}

// emit adds lines, the first with prefix first and the rest with rest.
func (w *mdWriter) emit(lines []string, first, rest string) {
	for i, l := range lines {
		p := rest
		if i == 0 {
			p = first
		}
		w.out = append(w.out, p+l)
	}
}

// children renders the blocks under n. Loose containers (the document,
// a blockquote, a loose list item) separate their blocks by blank lines.
func (w *mdWriter) children(n ast.Node, first, rest string, width int, loose bool) {
	i := 0
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if i > 0 {
			if loose {
				w.blank()
			}
			first = rest
		}
		w.block(c, first, rest, width, loose)
		i++
	}
}

func (w *mdWriter) block(n ast.Node, first, rest string, width int, loose bool) {
	room := max(width-ansi.StringWidth(rest), 8)
	switch n := n.(type) {
	case *ast.Heading:
		// Drawn by its style, not its hashes: "## Approach" is markup.
		st := mdHeading
		if n.Level == 1 {
			st = st.Underline(true)
		}
		w.emit(wrap(st.Render(w.inline(n)), room), first, rest)
	case *ast.Paragraph, *ast.TextBlock:
		if t, ok := mdtable.Parse(w.rawLines(n)); ok {
			w.emit(table(t.Rows, room), first, rest)
			return
		}
		w.emit(wrap(w.inline(n), room), first, rest)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		var lines []string
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			line := strings.TrimRight(string(seg.Value(w.src)), "\n")
			for _, l := range strings.Split(ansi.Hardwrap(line, max(room-2, 4), true), "\n") {
				lines = append(lines, "  "+mdBlock.Render(l))
			}
		}
		if len(lines) == 0 {
			lines = []string{""}
		}
		w.emit(lines, first, rest)
	case *ast.List:
		w.list(n, first, rest, width)
	case *ast.Blockquote:
		bar := dimStyle.Render("│ ")
		w.children(n, first+bar, rest+bar, width, true)
	case *ast.ThematicBreak:
		w.emit([]string{dimStyle.Render(strings.Repeat("─", min(room, 40)))}, first, rest)
	case *ast.HTMLBlock:
		var lines []string
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			lines = append(lines, dimStyle.Render(strings.TrimRight(string(seg.Value(w.src)), "\n")))
		}
		w.emit(lines, first, rest)
	default:
		w.children(n, first, rest, width, loose)
	}
}

// list renders items with "•" or their number; a tight list has no blank
// lines between its items.
func (w *mdWriter) list(l *ast.List, first, rest string, width int) {
	num := l.Start
	i := 0
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		marker := "• "
		if l.IsOrdered() {
			marker = fmt.Sprintf("%d. ", num)
			num++
		}
		if i > 0 {
			if !l.IsTight {
				w.blank()
			}
			first = rest
		}
		pad := strings.Repeat(" ", ansi.StringWidth(marker))
		w.children(item, first+marker, rest+pad, width, !l.IsTight)
		i++
	}
}

// rawLines is the source of a block, line by line.
func (w *mdWriter) rawLines(n ast.Node) []string {
	out := make([]string, 0, n.Lines().Len())
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		out = append(out, strings.TrimRight(string(seg.Value(w.src)), "\n"))
	}
	return out
}

// table draws rows with columns as wide as their widest cell, shrunk to
// fit the width; the first row is the header.
func table(rows [][]string, width int) []string {
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	if cols == 0 {
		return nil
	}
	widths := make([]int, cols)
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	// Shrink the widest column until the table fits (3 cells of " │ ").
	for sum(widths)+3*(cols-1) > width {
		wi := 0
		for i, v := range widths {
			if v > widths[wi] {
				wi = i
			}
		}
		if widths[wi] <= 3 {
			break
		}
		widths[wi]--
	}
	sep := dimStyle.Render(" │ ")
	var out []string
	for ri, r := range rows {
		parts := make([]string, cols)
		for i := range cols {
			cell := ""
			if i < len(r) {
				cell = ansi.Truncate(r[i], widths[i], "…")
			}
			pad := strings.Repeat(" ", max(widths[i]-ansi.StringWidth(cell), 0))
			if ri == 0 {
				cell = boldStyle.Render(cell)
			}
			parts[i] = cell + pad
		}
		out = append(out, strings.TrimRight(strings.Join(parts, sep), " "))
		if ri == 0 {
			rule := make([]string, cols)
			for i, v := range widths {
				rule[i] = strings.Repeat("─", v)
			}
			out = append(out, dimStyle.Render(strings.Join(rule, "─┼─")))
		}
	}
	return out
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// inline renders n's inline children as one styled string; hard line
// breaks are newlines.
func (w *mdWriter) inline(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		w.inlineNode(&b, c)
	}
	return b.String()
}

func (w *mdWriter) inlineNode(b *strings.Builder, n ast.Node) {
	switch n := n.(type) {
	case *ast.Text:
		b.Write(n.Segment.Value(w.src))
		switch {
		case n.HardLineBreak():
			b.WriteByte('\n')
		case n.SoftLineBreak():
			b.WriteByte(' ')
		}
	case *ast.String:
		b.Write(n.Value)
	case *ast.CodeSpan:
		var code strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				code.Write(t.Segment.Value(w.src))
			}
		}
		b.WriteString(mdCode.Render(code.String()))
	case *ast.Emphasis:
		inner := w.inline(n)
		if n.Level >= 2 {
			b.WriteString(boldStyle.Render(inner))
		} else {
			b.WriteString(mdItalic.Render(inner))
		}
	case *ast.Link:
		label := w.inline(n)
		b.WriteString(mdLink.Render(label))
		if dest := string(n.Destination); dest != "" && dest != ansi.Strip(label) {
			b.WriteString(dimStyle.Render(" (" + dest + ")"))
		}
	case *ast.AutoLink:
		b.WriteString(mdLink.Render(string(n.URL(w.src))))
	case *ast.Image:
		b.WriteString(dimStyle.Render("[image: " + ansi.Strip(w.inline(n)) + "]"))
	case *ast.RawHTML:
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			b.Write(seg.Value(w.src))
		}
	default:
		b.WriteString(w.inline(n))
	}
}

// wrap breaks styled text into lines of at most width cells at spaces,
// and inside words only when a word is longer than the line.
func wrap(s string, width int) []string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		out = append(out, strings.Split(ansi.Wrap(para, width, ""), "\n")...)
	}
	return out
}

// trimBlankEdges drops leading and trailing blank lines.
func trimBlankEdges(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(stripANSI(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(stripANSI(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
