package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/harness9/harness9/planning"
)

// reviewChoice is what the user decided about a submitted plan.
type reviewChoice int

const (
	reviewNone        reviewChoice = iota // still deciding
	reviewApproveAuto                     // [1] approve and auto-execute
	reviewApproveEdit                     // [2] approve, confirm each edit
	reviewRefine                          // [3] keep refining in Plan Mode
	reviewCancel                          // [4] drop the plan
)

var reviewOptions = []string{
	"Approve and auto-execute",
	"Approve and confirm each edit",
	"Keep refining (stay in Plan Mode)",
	"Cancel the plan",
}

// reviewDialog is seed 002's plan review dialog.
type reviewDialog struct {
	plan   planning.Plan
	cursor int
}

// update handles a key: 1–4 choose directly, ↑/↓ move, Enter chooses the
// highlighted option, Esc cancels.
func (d *reviewDialog) update(k tea.KeyPressMsg) reviewChoice {
	switch k.String() {
	case "1", "2", "3", "4":
		return reviewChoice(k.String()[0]-'0') + reviewNone
	case "up", "k", "shift+tab":
		d.cursor = (d.cursor + len(reviewOptions) - 1) % len(reviewOptions)
	case "down", "j", "tab":
		d.cursor = (d.cursor + 1) % len(reviewOptions)
	case "enter":
		return reviewChoice(d.cursor + 1)
	case "esc":
		return reviewCancel
	}
	return reviewNone
}

// view draws the dialog at most width columns wide, plan above options.
func (d *reviewDialog) view(width int, th theme) string {
	inner := min(width-4, 76)
	var b strings.Builder
	b.WriteString(th.accent.Bold(true).Render("Plan ready for review") + "\n\n")
	title := d.plan.Title
	if title == "" {
		title = "(untitled plan)"
	}
	b.WriteString(boldStyle.Render(ansi.Truncate(title, inner, "…")) + "\n")
	steps := d.plan.Steps
	const maxSteps = 12
	for i, s := range steps {
		if i == maxSteps {
			b.WriteString(dimStyle.Render(fmt.Sprintf("  … %d more steps", len(steps)-i)) + "\n")
			break
		}
		b.WriteString(ansi.Truncate(fmt.Sprintf("  %d. %s", i+1, s), inner, "…") + "\n")
	}
	b.WriteString("\n")
	for i, o := range reviewOptions {
		line := fmt.Sprintf("[%d] %s", i+1, o)
		if i == d.cursor {
			b.WriteString(th.accent.Bold(true).Render("› "+line) + "\n")
		} else {
			b.WriteString("  " + line + "\n")
		}
	}
	b.WriteString("\n" + dimStyle.Render("1–4 or ↑/↓ + Enter · Esc cancels the plan"))
	return dialogBox(b.String(), inner, th)
}

// dialogBox wraps content in seed 002's rounded border.
func dialogBox(content string, inner int, th theme) string {
	return lipgloss.NewStyle().
		Border(lipgloss.RoundedBorder()).
		BorderForeground(th.border.GetForeground()).
		Padding(0, 1).
		Width(inner + 4).
		Render(content)
}
