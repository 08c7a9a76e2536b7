package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

const pickerRows = 10

// chooser is a list picker: keys move and choose; Esc cancels.
type chooser interface {
	update(k tea.KeyPressMsg) (choice string, cancelled bool)
	view(width int, th theme) string
}

// pickerDialog is a chooser as a dialog: pick gets the choice.
type pickerDialog struct {
	c    chooser
	pick func(m *model, choice string) tea.Cmd
}

// A picker only chooses what to open: it is not guarded.
func (p *pickerDialog) decides() bool            { return false }
func (p *pickerDialog) paste(tea.PasteMsg)       {}
func (p *pickerDialog) dismiss() outcome         { return nil }
func (p *pickerDialog) view(v dialogView) string { return p.c.view(v.width, v.th) }

func (p *pickerDialog) key(k tea.KeyPressMsg) (outcome, bool, tea.Cmd) {
	choice, cancelled := p.c.update(k)
	switch {
	case cancelled:
		return nil, true, nil
	case choice != "":
		return func(m *model) tea.Cmd { return p.pick(m, choice) }, true, nil
	}
	return nil, false, nil
}

// modelPicker lists the models /model can switch to.
type modelPicker struct {
	items   []string
	current string
	cursor  int
}

func (p *modelPicker) update(k tea.KeyPressMsg) (string, bool) {
	switch k.String() {
	case "up":
		p.cursor = max(p.cursor-1, 0)
	case "down":
		p.cursor = min(p.cursor+1, len(p.items)-1)
	case "enter":
		return p.items[p.cursor], false
	case "esc":
		return "", true
	default:
		if d := k.String(); len(d) == 1 && d[0] >= '1' && d[0] <= '9' && int(d[0]-'1') < len(p.items) {
			p.cursor = int(d[0] - '1')
		}
	}
	return "", false
}

func (p *modelPicker) view(width int, th theme) string {
	inner := min(width-4, 96)
	lines := []string{th.accent.Bold(true).Render("Switch model (next turn on)"), ""}
	start := max(0, min(p.cursor-pickerRows/2, len(p.items)-pickerRows))
	for i := start; i < len(p.items) && i < start+pickerRows; i++ {
		text := p.items[i]
		if text == p.current {
			text += dimStyle.Render("  (current)")
		}
		lines = append(lines, optionLine(i+1, text, i == p.cursor, false, inner, th))
	}
	lines = append(lines, "", dimStyle.Render(ansi.Truncate("↑/↓ or 1–9 pick · Enter switches · Esc closes · /model NAME for another", inner, "…")))
	return dialogBox(strings.Join(lines, "\n"), inner, th)
}

// resumePicker lists this workdir's sessions for /resume.
type resumePicker struct {
	items  []SessionInfo
	cursor int
	now    time.Time
}

// update returns the chosen id, or cancelled on Esc.
func (p *resumePicker) update(k tea.KeyPressMsg) (id string, cancelled bool) {
	switch k.String() {
	case "up", "k":
		p.cursor = max(p.cursor-1, 0)
	case "down", "j":
		p.cursor = min(p.cursor+1, len(p.items)-1)
	case "enter":
		return p.items[p.cursor].ID, false
	case "esc", "q":
		return "", true
	}
	return "", false
}

func (p *resumePicker) view(width int, th theme) string {
	inner := min(width-4, 96)
	var b strings.Builder
	b.WriteString(th.accent.Bold(true).Render("Resume a session") + "\n\n")
	start := max(0, min(p.cursor-pickerRows/2, len(p.items)-pickerRows))
	for i := start; i < len(p.items) && i < start+pickerRows; i++ {
		s := p.items[i]
		title := s.Title
		if title == "" {
			title = "(untitled)"
		}
		meta := fmt.Sprintf("%s · %s", shortID(s.ID), age(p.now.Sub(s.Updated)))
		if s.Total > 0 {
			meta += fmt.Sprintf(" · %d/%d tasks", s.Done, s.Total)
		}
		line := ansi.Truncate(title, max(inner-ansi.StringWidth(meta)-5, 8), "…")
		pad := max(inner-2-ansi.StringWidth(line)-ansi.StringWidth(meta), 1)
		row := line + strings.Repeat(" ", pad) + dimStyle.Render(meta)
		if i == p.cursor {
			b.WriteString(th.accent.Render("› ") + row + "\n")
		} else {
			b.WriteString("  " + row + "\n")
		}
	}
	b.WriteString("\n" + dimStyle.Render("↑/↓ + Enter resume · Esc close"))
	return dialogBox(b.String(), inner, th)
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// age renders a duration the way people say it: "3m ago", "2h ago", "5d ago".
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}
