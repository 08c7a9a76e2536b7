package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/harness9/harness9/planning"
)

// statusBar is the bottom line: mode, model, context use, session, task
// progress, and what the agent is doing.
type statusBar struct {
	mode        planning.Mode
	model       string
	ctxTokens   int
	ctxWindow   int
	sessionID   string
	done, total int
	activity    string // "running", "exec round 2 · 1/3", ...
	// next is the mode the next turn will use, shown when showNext (the
	// user switched modes while a turn runs in mode).
	next     planning.Mode
	showNext bool
	// sandbox labels the kernel sandbox: dim when enforced, red otherwise.
	sandbox   string
	sandboxOK bool
	usage     string // the session's token totals (and cost)
}

// contextStyle colours the gauge: green below 50%, yellow below 80%, red above.
func contextStyle(pct int, bg lipgloss.Style) lipgloss.Style {
	switch {
	case pct >= 80:
		return bg.Foreground(colRed)
	case pct >= 50:
		return bg.Foreground(colYellow)
	}
	return bg.Foreground(colGreen)
}

func (s statusBar) view(width int) string {
	th := themeFor(s.mode)
	sep := th.bar.Foreground(colDim).Render(" │ ")
	parts := []string{th.modeLabel.Render(" " + modeLabel(s.mode) + " ")}
	if s.showNext {
		parts = append(parts, th.bar.Render("next turn: "+modeLabel(s.next)))
	}
	if s.model != "" {
		parts = append(parts, th.bar.Render(s.model))
	}
	if s.sandbox != "" {
		st := th.bar.Foreground(colDim)
		if !s.sandboxOK {
			st = th.bar.Foreground(colRed).Bold(true)
		}
		parts = append(parts, st.Render(s.sandbox))
	}
	if s.ctxWindow > 0 {
		pct := s.ctxTokens * 100 / s.ctxWindow
		parts = append(parts, contextStyle(pct, th.bar).Render(fmt.Sprintf("ctx %d%%", pct)))
	}
	if s.usage != "" {
		parts = append(parts, th.bar.Foreground(colDim).Render(s.usage))
	}
	if s.total > 0 {
		// Completed items only: in_progress is not progress (seed 002).
		parts = append(parts, th.bar.Render(fmt.Sprintf("%d/%d tasks", s.done, s.total)))
	}
	if s.sessionID != "" {
		parts = append(parts, th.bar.Foreground(colDim).Render("session "+shortID(s.sessionID)))
	}
	left := strings.Join(parts, sep)
	right := ""
	if s.activity != "" {
		right = th.bar.Bold(true).Render(s.activity + " ")
	}
	gap := width - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		return ansi.Truncate(left+th.bar.Render(" ")+right, width, "…")
	}
	return left + th.bar.Render(strings.Repeat(" ", gap)) + right
}
