package tui

import (
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
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
//
// Bubble Tea writes a print to the terminal as soon as it is made and the
// frame without the printed block at its next frame (1/60 s at most on an
// idle machine), above the frame last drawn: for that moment the block
// shows twice. The frame that follows erases the second one; nothing is
// left twice in the scrollback (the e2e tests look once the terminal has
// settled).

// printedMsg says the last print has reached the terminal.
type printedMsg struct{}

// printAbove is the default printer: text goes above the program, then
// printedMsg follows (a sequence keeps the two in order).
func printAbove(text string) tea.Cmd {
	return tea.Sequence(tea.Println(text), func() tea.Msg { return printedMsg{} })
}

// inline reports whether finished blocks go to the terminal's scrollback.
func (m *model) inline() bool { return !m.opts.Fullscreen }

// Bubble Tea prints above the program by scrolling the terminal up by the
// printed rows and drawing them over the place the last frame left: that
// holds only while the printed rows and that frame fit on the screen
// together. When they do not, the frame's rows are overwritten or pushed
// into the scrollback, and Bubble Tea, which believes the frame is still
// on the screen, draws later frames over what is not there (a status bar
// half blank, a row of the editor left in the scrollback). The frame the
// print meets is whichever Bubble Tea last drew, which the model cannot
// know, so the live area never takes the whole screen: it leaves
// printReserve rows, and a print is at most that many rows.

// printReserve is how many of a screen's rows a print may take: a quarter,
// at least one, at most eight.
func printReserve(height int) int { return min(max(height/4, 1), 8) }

// frameHeight is how tall the program's frame may be: the whole screen
// in full-screen mode, the screen minus the print reserve inline.
func (m *model) frameHeight() int {
	if !m.inline() {
		return m.height
	}
	return m.height - printReserve(m.height)
}

// flushScrollback prints the finished blocks not yet printed, at most a
// print reserve of rows at a time. It waits while a print is in flight,
// while the pager has the screen, and until the terminal's size is known.
func (m *model) flushScrollback() tea.Cmd {
	if !m.inline() || m.printing || m.pager != nil || !m.sized || m.quitting {
		return nil
	}
	if len(m.unprinted) == 0 {
		// The blocks that finished since the last print leave the live
		// area together; later ones stay in it until these are printed.
		n := m.tr.finishedUpTo()
		for i := m.tr.printed; i < n; i++ {
			for _, l := range m.tr.linesOf(i) {
				m.unprinted = append(m.unprinted, strings.Split(l, "\n")...)
			}
		}
		m.tr.printed = n
		if len(m.unprinted) == 0 {
			return nil
		}
	}
	k := rowsThatFit(m.unprinted, m.width, printReserve(m.height))
	text := strings.Join(m.unprinted[:k], "\n")
	m.unprinted = m.unprinted[k:]
	if len(m.unprinted) == 0 {
		m.unprinted = nil
	}
	m.printing = true
	return m.print(text)
}

// printWait bounds how long quitting waits for a print in flight.
const printWait = time.Second

// unsent is the transcript's text the terminal was never given, once the
// user quit: the rows of blocks waiting for their turn to be printed, and
// the blocks still in the live area (an answer cut off mid-stream, calls
// still running). Quitting clears the live area, so Run writes this after
// the program ends, where it stays in the terminal with the rest.
func (m *model) unsent() string {
	if !m.inline() || !m.sized || !m.quitting {
		return ""
	}
	rows := slices.Clone(m.unprinted)
	for i := m.tr.printed; i < len(m.tr.blocks); i++ {
		for _, l := range m.tr.linesOf(i) {
			rows = append(rows, strings.Split(l, "\n")...)
		}
	}
	if len(rows) == 0 {
		return ""
	}
	return strings.Join(rows, "\n") + "\n"
}

// rowsThatFit is how many of lines, from the first, a print of at most
// room rows takes (at least one line). A line wider than the screen
// counts as Bubble Tea counts it when it scrolls for a print.
func rowsThatFit(lines []string, width, room int) int {
	rows := 0
	for i, l := range lines {
		r := 1
		if w := ansi.StringWidth(l); width > 0 && w > width {
			r += w / width
		}
		if rows+r > room && i > 0 {
			return i
		}
		rows += r
	}
	return len(lines)
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
	limit := m.frameHeight()
	room := limit - len(parts) - 2 - lineCount(bottom)
	if room > 0 {
		parts = append(parts, m.tr.liveView(room)...)
	}
	parts = append(parts, m.hintLine(), bottom, m.statusBar().view(m.width))
	frame := strings.Join(parts, "\n")
	if rows := strings.Split(frame, "\n"); len(rows) > limit {
		// A screen too small for the editor or dialog: its lowest rows
		// (the status bar last) are the ones kept.
		frame = strings.Join(rows[len(rows)-max(limit, 1):], "\n")
	}
	return frame
}
