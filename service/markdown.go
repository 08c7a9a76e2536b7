package service

import (
	"bytes"
	"html/template"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/harness9/harness9/internal/lib/mdtable"
)

// A plan's markdown is CommonMark (goldmark's core) plus GitHub tables,
// drawn from the paragraph they parse as (internal/lib/mdtable), like the TUI
// does. goldmark's extension package is left out: its linkify regexps cost
// every harness9 start about 3 ms of package initialisation. Task lists
// and strikethrough show as typed; bare URLs are not turned into links.
//
// Raw HTML is left out and dangerous link targets (javascript:) are
// dropped — goldmark's defaults without html.WithUnsafe — in the text and
// in every table cell: a plan written by a model cannot put script in the
// page.

// markdown is built on first use: every harness9 process links this
// package, few of them serve a page.
var markdown = sync.OnceValue(func() goldmark.Markdown {
	core := goldmark.New()
	return goldmark.New(
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(tableTransformer{}, 100))),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(tableRenderer{cell: core}, 100))),
	)
})

func renderMarkdown(src string) template.HTML {
	var b bytes.Buffer
	if err := markdown().Convert([]byte(src), &b); err != nil {
		return template.HTML(template.HTMLEscapeString(src))
	}
	return template.HTML(b.String()) // #nosec: goldmark escaped it (no unsafe mode)
}

var kindTable = ast.NewNodeKind("PlanTable")

// tableNode is a paragraph that is a GitHub table.
type tableNode struct {
	ast.BaseBlock
	table mdtable.Table
}

func (n *tableNode) Kind() ast.NodeKind { return kindTable }

func (n *tableNode) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

// tableTransformer replaces each paragraph that parses as a table.
type tableTransformer struct{}

func (tableTransformer) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	var found []*ast.Paragraph
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if p, ok := n.(*ast.Paragraph); ok && entering {
			found = append(found, p)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	for _, p := range found {
		lines := make([]string, p.Lines().Len())
		for i := range lines {
			seg := p.Lines().At(i)
			lines[i] = strings.TrimRight(string(seg.Value(src)), "\r\n")
		}
		if t, ok := mdtable.Parse(lines); ok {
			p.Parent().ReplaceChild(p.Parent(), p, &tableNode{table: t})
		}
	}
}

// tableRenderer writes a tableNode as an HTML table; each cell's inline
// markdown goes through cell, the core renderer with the same safe
// defaults.
type tableRenderer struct{ cell goldmark.Markdown }

func (r tableRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindTable, r.render)
}

func (r tableRenderer) render(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	t := n.(*tableNode).table
	_, _ = w.WriteString("<table>\n")
	for i, row := range t.Rows {
		tag := "td"
		if i == 0 {
			tag = "th"
			_, _ = w.WriteString("<thead>\n")
		} else if i == 1 {
			_, _ = w.WriteString("<tbody>\n")
		}
		_, _ = w.WriteString("<tr>\n")
		for c := range t.Align { // every row has the delimiter row's columns
			var cell string
			if c < len(row) {
				cell = row[c]
			}
			_, _ = w.WriteString("<" + tag + alignAttr(t.Align[c]) + ">")
			_, _ = w.WriteString(r.inline(cell))
			_, _ = w.WriteString("</" + tag + ">\n")
		}
		_, _ = w.WriteString("</tr>\n")
		if i == 0 {
			_, _ = w.WriteString("</thead>\n")
		}
	}
	if len(t.Rows) > 1 {
		_, _ = w.WriteString("</tbody>\n")
	}
	_, _ = w.WriteString("</table>\n")
	return ast.WalkSkipChildren, nil
}

// inline renders one cell's markdown: one paragraph's content, or the
// escaped text when it is not one (a cell reading "# x" is not a heading).
func (r tableRenderer) inline(cell string) string {
	var b bytes.Buffer
	if err := r.cell.Convert([]byte(cell), &b); err == nil {
		if s, ok := strings.CutPrefix(b.String(), "<p>"); ok {
			if s, ok := strings.CutSuffix(s, "</p>\n"); ok && !strings.Contains(s, "<p>") {
				return s
			}
		}
	}
	return template.HTMLEscapeString(cell)
}

// alignAttr is a class (app.css), not a style attribute: the page's
// Content-Security-Policy allows no inline style.
func alignAttr(a mdtable.Align) string {
	switch a {
	case mdtable.AlignLeft:
		return ` class="align-left"`
	case mdtable.AlignRight:
		return ` class="align-right"`
	case mdtable.AlignCenter:
		return ` class="align-center"`
	}
	return ""
}
