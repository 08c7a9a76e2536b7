package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// Inline rendering (the default). The program does not take the
// alternate screen: a finished block (a message, a tool call with its
// result, a note) is printed above the program into the terminal's own
// scrollback, where the terminal's scrolling, search and selection work
// and where it stays after harness9 exits. The program itself draws only
// the live area at the bottom: what is still changing (a streamed answer,
// running calls), the editor or a dialog, and the status bar.
//
// Blocks go to the scrollback in order: a finished block waits behind an
// unfinished one above it (parallel tool calls). One print is in flight
// at a time, so prints reach the terminal in the order they were made.

// printedMsg says the last print has reached the terminal.
type printedMsg struct{}

// printAbove is the default printer: text goes above the program, then
// printedMsg follows (a sequence keeps the two in order).
func printAbove(text string) tea.Cmd {
	return tea.Sequence(tea.Println(text), func() tea.Msg { return printedMsg{} })
}

// inline reports whether finished blocks go to the terminal's scrollback.
func (m *model) inline() bool { return !m.opts.Fullscreen }

// flushScrollback prints the finished blocks not yet printed. It waits
// while a print is in flight, while the pager has the screen, and until
// the terminal's width is known.
func (m *model) flushScrollback() tea.Cmd {
	if !m.inline() || m.printing || m.pager != nil || !m.sized || m.quitting {
		return nil
	}
	n := m.tr.finishedUpTo()
	if n <= m.tr.printed {
		return nil
	}
	var lines []string
	for i := m.tr.printed; i < n; i++ {
		lines = append(lines, m.tr.linesOf(i)...)
	}
	m.tr.printed = n
	m.printing = true
	return m.print(strings.Join(lines, "\n"))
}

// finishedUpTo is the end of the run of finished blocks from the first
// one not printed: those can be printed.
func (t *transcript) finishedUpTo() int {
	i := t.printed
	for i < len(t.blocks) && t.blocks[i].finished() {
		i++
	}
	return i
}

// finished reports whether the block will not change any more.
func (b *block) finished() bool {
	switch b.kind {
	case blockAssistant:
		return !b.streaming
	case blockTool:
		return b.done
	}
	return true
}

// liveView draws the blocks not yet printed, the newest rows if they do
// not all fit in rows.
func (t *transcript) liveView(rows int) []string {
	var out []string
	for i := len(t.blocks) - 1; i >= t.printed && len(out) < rows; i-- {
		out = append(t.linesOf(i), out...)
	}
	if len(out) > rows {
		out = out[len(out)-rows:]
	}
	return out
}

// renderInline composes the live area: banner, live blocks, hint, editor
// or dialog, status bar. It is as tall as what it shows, never taller than
// the screen.
func (m *model) renderInline() string {
	if m.quitting {
		return ""
	}
	bottom := m.bottomPane()
	var parts []string
	if m.opts.DemoBanner != "" {
		parts = append(parts, demoBanner(m.opts.DemoBanner, m.width))
	}
	if m.tr.width != m.width {
		m.tr.setSize(m.width, m.tr.height)
	}
	room := m.height - len(parts) - 2 - lineCount(bottom)
	if room > 0 {
		parts = append(parts, m.tr.liveView(room)...)
	}
	parts = append(parts, m.hintLine(), bottom, m.statusBar().view(m.width))
	return strings.Join(parts, "\n")
}
