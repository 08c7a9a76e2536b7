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
	// effort is the reasoning effort set with /effort or --effort, shown
	// after the model ("" for the provider's default).
	effort string
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

// barItem is one item of the status bar: its text, a shorter form ("" if
// none) and, once fitted, which form is shown.
type barItem struct {
	full, short string
	st          lipgloss.Style
	dropped     bool
	shortened   bool
}

func (it *barItem) text() string {
	if it.shortened && it.short != "" {
		return it.short
	}
	return it.full
}

// The status bar's items, by name, in the order they are shown.
const (
	barMode = iota
	barSandbox
	barNext
	barModel
	barCtx
	barUsage
	barTasks
	barSession
	barActivity // right-aligned
	barItems
)

// fitting is the order in which a narrow bar gives things up, the least
// needed first: a shorter form (shorten) or the item (drop). The mode and
// the sandbox's state are never dropped: they say what the agent may do.
var fitting = []struct {
	item    int
	shorten bool
}{
	{barSession, false}, {barModel, true}, {barUsage, true}, {barModel, false}, {barMode, true},
	{barActivity, true}, {barNext, true}, {barTasks, true}, {barCtx, true},
	{barNext, false}, {barTasks, false}, {barUsage, false}, {barCtx, false}, {barActivity, false},
}

func (s statusBar) view(width int) string {
	th := themeFor(s.mode)
	dim := th.bar.Foreground(colDim)
	items := make([]barItem, barItems)
	items[barMode] = barItem{full: " " + modeLabel(s.mode) + " ", short: " " + shortModeLabel(s.mode) + " ", st: th.modeLabel}
	if s.sandbox != "" {
		st := dim
		if !s.sandboxOK {
			st = th.bar.Foreground(colRed).Bold(true)
		}
		items[barSandbox] = barItem{full: s.sandbox, st: st}
	}
	if s.showNext {
		items[barNext] = barItem{full: "next turn: " + modeLabel(s.next), short: "next: " + shortModeLabel(s.next), st: th.bar}
	}
	if s.model != "" {
		_, name, ok := strings.Cut(s.model, "/")
		if !ok {
			name = ""
		}
		full := s.model
		if s.effort != "" {
			full += " " + s.effort
			if name != "" {
				name += " " + s.effort
			}
		}
		items[barModel] = barItem{full: full, short: name, st: th.bar}
	}
	if s.ctxWindow > 0 {
		pct := s.ctxTokens * 100 / s.ctxWindow
		items[barCtx] = barItem{full: fmt.Sprintf("ctx %d%%", pct), short: fmt.Sprintf("%d%%", pct), st: contextStyle(pct, th.bar)}
	}
	if s.usage != "" {
		short, _, _ := strings.Cut(s.usage, " $")
		items[barUsage] = barItem{full: s.usage, short: short, st: dim}
	}
	if s.total > 0 {
		// Completed items only: in_progress is not progress (seed 002).
		items[barTasks] = barItem{full: fmt.Sprintf("%d/%d tasks", s.done, s.total), short: fmt.Sprintf("%d/%d", s.done, s.total), st: th.bar}
	}
	if s.sessionID != "" {
		items[barSession] = barItem{full: "session " + shortID(s.sessionID), st: dim}
	}
	if s.activity != "" {
		items[barActivity] = barItem{full: s.activity + " ", short: shortActivity(s.activity) + " ", st: th.bar.Bold(true)}
	}
	line := s.compose(items, width, th)
	for _, f := range fitting {
		if ansi.StringWidth(line) <= width {
			break
		}
		it := &items[f.item]
		if f.shorten {
			it.shortened = true
		} else {
			it.dropped = true
		}
		line = s.compose(items, width, th)
	}
	return ansi.Truncate(line, width, "…")
}

// compose lays the items out: the left ones separated, the activity at
// the right edge.
func (s statusBar) compose(items []barItem, width int, th theme) string {
	sep := th.bar.Foreground(colDim).Render(" │ ")
	var parts []string
	for i := range barActivity {
		if it := &items[i]; it.full != "" && !it.dropped && it.text() != "" {
			parts = append(parts, it.st.Render(it.text()))
		}
	}
	left := strings.Join(parts, sep)
	right := ""
	if it := &items[barActivity]; it.full != "" && !it.dropped {
		right = it.st.Render(it.text())
	}
	gap := max(width-ansi.StringWidth(left)-ansi.StringWidth(right), 1)
	return left + th.bar.Render(strings.Repeat(" ", gap)) + right
}

// shortModeLabel is the mode's name for a narrow bar.
func shortModeLabel(m planning.Mode) string {
	if m == planning.ModeAutoEdit {
		return "AUTO-EDIT"
	}
	return modeLabel(m)
}

// shortActivity is "round 2" for "exec round 2".
func shortActivity(a string) string {
	return strings.TrimPrefix(a, "exec ")
}
