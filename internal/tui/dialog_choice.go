package tui

import (
	"fmt"
	"github.com/harness9/harness9/internal/termtext"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// choiceDialog is a small question with numbered options (undo, rewind,
// memory). Only its own keys act: a digit or ↑/↓ moves the cursor, Enter
// confirms, Esc cancels; typed letters do nothing.
type choiceDialog struct {
	title   string
	body    []string
	options []string
	cursor  int
	// choose is called with the chosen option's index, or -1 on Esc.
	choose func(m *model, i int) tea.Cmd
}

// update returns the chosen index, -1 when cancelled, and whether the
// dialog is done.
func (d *choiceDialog) update(k tea.KeyPressMsg) (int, bool) {
	switch s := k.String(); s {
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
	body := d.body
	if limit := max(room-len(d.options)-6, 1); len(body) > limit {
		body = append(body[:limit-1:limit-1], fmt.Sprintf("… and %d more", len(d.body)-limit+1))
	}
	// Bodies and options name files and prompts the model may have
	// written: shown, never obeyed by the terminal (termtext).
	for _, l := range body {
		b.WriteString(ansi.Truncate(termtext.Clean(l), inner, "…") + "\n")
	}
	b.WriteString("\n")
	for i, o := range d.options {
		row := ansi.Truncate(termtext.Clean(fmt.Sprintf("[%d] %s", i+1, o)), inner-2, "…")
		if i == d.cursor {
			b.WriteString(th.accent.Render("› "+row) + "\n")
		} else {
			b.WriteString("  " + row + "\n")
		}
	}
	b.WriteString("\n" + dimStyle.Render("digit or ↑/↓ + Enter choose · Esc cancel"))
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
