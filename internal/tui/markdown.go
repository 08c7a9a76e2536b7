package tui

import (
	"strings"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"
)

// markdown renders completed assistant messages with Glamour, keeping one
// renderer per width (building a renderer is far dearer than using one).
type markdown struct {
	byWidth map[int]*glamour.TermRenderer
}

func newMarkdown() *markdown { return &markdown{byWidth: map[int]*glamour.TermRenderer{}} }

// render returns s as terminal lines; it falls back to plain wrapping if
// Glamour fails, because a reply must never disappear from the screen.
func (m *markdown) render(s string, width int) []string {
	r, ok := m.byWidth[width]
	if !ok {
		var err error
		// A fixed style: automatic detection would query the terminal.
		r, err = glamour.NewTermRenderer(glamour.WithStandardStyle(styles.DarkStyle), glamour.WithWordWrap(width-2))
		if err != nil {
			r = nil
		}
		m.byWidth[width] = r
	}
	if r != nil {
		if out, err := r.Render(s); err == nil {
			return trimBlankEdges(strings.Split(out, "\n"))
		}
	}
	return wrapLines(s, width, "  ")
}

// trimBlankEdges drops Glamour's leading and trailing blank lines.
func trimBlankEdges(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(stripANSI(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(stripANSI(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
