package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/harness9/harness9/internal/termtext"
)

// choiceDialog is a small question with numbered options (undo, rewind,
// memory). Only its own keys act: a digit or ↑/↓ moves the cursor, Enter
// confirms, Esc cancels; typed letters do nothing.
type choiceDialog struct {
	title     string
	body      []string
	options   []string
	cursor    int
	top, rows int // the body's scroll position and page
	// choose is called with the chosen option's index, or -1 on Esc.
	choose func(m *model, i int) tea.Cmd
}

// update returns the chosen index, -1 when cancelled, and whether the
// dialog is done.
func (d *choiceDialog) update(k tea.KeyPressMsg) (int, bool) {
	switch s := k.String(); s {
	case "pgup":
		d.top -= max(d.rows-1, 1)
	case "pgdown":
		d.top += max(d.rows-1, 1)
	case "up":
		d.cursor = max(d.cursor-1, 0)
	case "down":
		d.cursor = min(d.cursor+1, len(d.options)-1)
	case "enter":
		return d.cursor, true
	case "esc":
		return -1, true
	default:
		if len(s) == 1 && s[0] >= '1' && s[0] <= '9' && int(s[0]-'1') < len(d.options) {
			d.cursor = int(s[0] - '1')
		}
	}
	return 0, false
}

func (d *choiceDialog) view(v dialogView) string {
	width, room, th := v.width, v.room, v.th
	inner := min(width-4, 96)
	var b strings.Builder
	b.WriteString(th.accent.Bold(true).Render(d.title) + "\n")
	// Bodies and options name files and prompts the model may have
	// written: shown, never obeyed by the terminal (termtext).
	var opts []string
	for i, o := range d.options {
		opts = append(opts, optionLines(i+1, termtext.Clean(o), i == d.cursor, false, inner, th)...)
	}
	var body []string
	for _, l := range d.body {
		body = append(body, ansi.Truncate(termtext.Clean(l), inner, "…"))
	}
	// Rows: border 2, title, blank, options, blank, help.
	d.rows = max(room-len(opts)-6, 1)
	for _, l := range scrollWindow(body, &d.top, d.rows) {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n")
	for _, l := range opts {
		b.WriteString(l + "\n")
	}
	help := "digit or ↑/↓ + Enter choose · Esc cancel"
	if len(body) > d.rows {
		help += " · PgUp/PgDn scroll"
	}
	b.WriteString("\n" + dimStyle.Render(ansi.Truncate(help, inner, "…")))
	return dialogBox(b.String(), inner, th)
}

func (d *choiceDialog) decides() bool { return true }

// key implements dialog.
func (d *choiceDialog) key(k tea.KeyPressMsg) (outcome, bool, tea.Cmd) {
	i, done := d.update(k)
	if !done {
		return nil, false, nil
	}
	return func(m *model) tea.Cmd { return d.choose(m, i) }, true, nil
}

// dismiss implements dialog: as Esc.
func (d *choiceDialog) dismiss() outcome {
	return func(m *model) tea.Cmd { return d.choose(m, -1) }
}

func (d *choiceDialog) paste(tea.PasteMsg) {}
