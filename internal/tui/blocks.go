package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/harness9/harness9/planning"
)

type blockKind int

const (
	blockUser blockKind = iota
	blockAssistant
	blockTool
	blockTodos
	blockNotice // dim informational line
	blockWarn   // stall and similar warnings
	blockError
	blockPlan
	blockBanner
)

// block is one transcript entry with its rendered lines cached.
type block struct {
	kind blockKind
	text string
	// assistant
	streaming bool
	// tool
	callID, name, arg string
	result            string
	summary           string // the tool's own one-line summary, if it gives one
	diff              bool   // the result is a unified diff (tool.DiffOutput)
	isError, done     bool
	live              string // output so far while the call runs (agent.ToolOutput)
	// a task call's sub-agent (agent.Nested events), nil for other calls
	sub *subagentRun
	// todos
	todos []planning.TodoItem
	// plan
	plan *planning.Plan

	width int
	lines []string
	dirty bool
}

func (b *block) render(width int, md *markdown) []string {
	b = b.forDisplay()
	switch b.kind {
	case blockUser:
		return append(prefixLines(wrapLines(b.text, width-2, ""), userStyle.Render("> "), "  "), "")
	case blockAssistant:
		if b.streaming {
			return append(wrapLines(b.text, width, "  "), "")
		}
		return append(md.render(expandTabs(b.text), width), "")
	case blockTool:
		return renderTool(b, width)
	case blockTodos:
		return append(renderTodos(b.todos, width), "")
	case blockNotice:
		return styleLines(wrapLines(b.text, width, "  "), dimStyle)
	case blockWarn:
		return append(styleLines(wrapLines(b.text, width, "  "), warnStyle), "")
	case blockError:
		return append(styleLines(wrapLines(b.text, width, "  "), errorStyle), "")
	case blockPlan:
		return append(renderPlan(b.plan, width, md), "")
	case blockBanner:
		return append(styleLines(wrapLines(b.text, width, "  "), warnStyle), "")
	}
	return nil
}

// renderTodos draws a todo snapshot: ✔ completed, ▶ in progress, ○ pending,
// ⊘ cancelled (seed 002).
func renderTodos(items []planning.TodoItem, width int) []string {
	done, _, total := planning.Progress(items)
	out := []string{"  " + boldStyle.Render("Todos") + dimStyle.Render(fmt.Sprintf(" %d/%d", done, total))}
	for _, it := range items {
		icon, st := "○", lipgloss.NewStyle()
		switch it.Status {
		case planning.TodoCompleted:
			icon, st = "✔", okStyle
		case planning.TodoInProgress:
			icon, st = "▶", lipgloss.NewStyle().Foreground(colAccent).Bold(true)
		case planning.TodoCancelled:
			icon, st = "⊘", dimStyle.Strikethrough(true)
		}
		line := ansi.Truncate(it.Content, max(width-6, 10), "…")
		out = append(out, "    "+st.Render(icon+" "+line))
	}
	return out
}

// renderPlan shows a submitted plan in the transcript: title, markdown
// content and steps, so it stays readable after the dialog closes.
func renderPlan(p *planning.Plan, width int, md *markdown) []string {
	if p == nil {
		return nil
	}
	out := []string{"  " + boldStyle.Render("Plan: "+p.Title)}
	for _, l := range planLines(p, width-2, md) {
		out = append(out, "  "+l)
	}
	return out
}

// wrapLines word-wraps s to width and indents every line.
func wrapLines(s string, width int, indent string) []string {
	w := max(width-ansi.StringWidth(indent), 8)
	s = expandTabs(s)
	lines := strings.Split(ansi.Wrap(s, w, ""), "\n")
	for i, l := range lines {
		lines[i] = indent + l
	}
	return lines
}

// tabWidth is the width of a tab stop on screen. Terminal cells have no
// tabs: a tab left in a line is drawn as nothing (or one cell) by the
// renderer, so every tab is expanded before a line is measured or drawn.
const tabWidth = 4

// expandTabs replaces each tab with spaces up to the next tab stop, per
// line, so code keeps its indentation and alignment.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := tabWidth - col%tabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col++
		}
	}
	return b.String()
}

func prefixLines(lines []string, first, rest string) []string {
	for i := range lines {
		if i == 0 {
			lines[i] = first + lines[i]
		} else {
			lines[i] = rest + lines[i]
		}
	}
	return lines
}

func styleLines(lines []string, st lipgloss.Style) []string {
	for i, l := range lines {
		lines[i] = st.Render(l)
	}
	return lines
}

func stripANSI(s string) string { return ansi.Strip(s) }
