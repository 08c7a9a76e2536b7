package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/termtext"
)

// subagentRun is what the TUI knows of a sub-agent started by a task call:
// its tool calls (with their results, for the pager), its tokens and its
// answer. Its block shows the call running now; Ctrl+O lists them all.
type subagentRun struct {
	calls  []subCall
	tokens int
	answer string
}

// subCall is one tool call of a sub-agent.
type subCall struct {
	id, name, arg string
	done, isError bool
	summary       string
}

// handleNested folds a sub-agent's event into the block of the task call
// that started it. Its token use counts toward the session's totals; the
// context bar stays the parent's.
func (m *model) handleNested(n agent.Nested) {
	inner := n.Event
	for {
		nn, ok := inner.(agent.Nested)
		if !ok {
			break
		}
		inner = nn.Event
	}
	if u, ok := inner.(agent.UsageUpdate); ok {
		m.tokensIn += u.Usage.InputTokens
		m.tokensOut += u.Usage.OutputTokens
		m.addUsage(u.Usage)
	}
	b := m.calls[n.Parent]
	if b == nil {
		return
	}
	if b.sub == nil {
		b.sub = &subagentRun{}
	}
	if b.sub.record(inner) {
		b.dirty = true
	}
}

// record adds one event; it reports whether the block changed.
func (s *subagentRun) record(ev agent.Event) bool {
	switch e := ev.(type) {
	case agent.ToolCall:
		s.calls = append(s.calls, subCall{id: e.ID, name: e.Name, arg: keyArg(e.Name, e.Input)})
	case agent.ToolResult:
		for i := range s.calls {
			if c := &s.calls[i]; c.id == e.ID {
				c.done, c.isError = true, e.IsError
				c.summary = e.Summary
				if c.summary == "" {
					c.summary = firstAndCount(strings.TrimSpace(e.Output))
				}
			}
		}
	case agent.UsageUpdate:
		s.tokens += e.Usage.InputTokens + e.Usage.OutputTokens
	case agent.Text:
		s.answer = e.Text
	default:
		return false
	}
	return true
}

// status is the sub-agent's one-line count: "3 tool calls · 3.1k tokens".
func (s *subagentRun) status() string {
	return fmt.Sprintf("%d %s · %s tokens", len(s.calls), plural(len(s.calls), "tool call", "tool calls"), formatTokens(s.tokens))
}

// current is the call running now ("" when none).
func (s *subagentRun) current() *subCall {
	for i := len(s.calls) - 1; i >= 0; i-- {
		if !s.calls[i].done {
			return &s.calls[i]
		}
	}
	return nil
}

// lines draws the sub-agent under its task call: while it runs, its count
// and the call it is making (tool and file); once done, the count and the
// first line of its answer, and for Ctrl+O a hint.
func (s *subagentRun) lines(b *block, width int) []string {
	const gutter = "   ⎿ "
	st := dimStyle
	if b.done && b.isError {
		st = errorStyle
	}
	if b.done {
		line := s.status() + " · " + firstAndCount(strings.TrimSpace(termtext.Clean(b.result)))
		return []string{st.Render(ansi.Truncate(gutter+line, width, "…"))}
	}
	out := []string{st.Render(ansi.Truncate(gutter+s.status(), width, "…"))}
	if c := s.current(); c != nil {
		now := "▸ " + termtext.Clean(c.name)
		if c.arg != "" {
			now += " " + strings.ReplaceAll(termtext.Clean(c.arg), "\n", " ")
		}
		out = append(out, dimStyle.Render(ansi.Truncate("     "+now, width, "…")))
	}
	return out
}

// pagerText is the sub-agent's calls and answer, for Ctrl+O.
func (s *subagentRun) pagerText(result string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Sub-agent: %s\n\n", s.status())
	for i, c := range s.calls {
		mark := callState(c.done, c.isError, "…", "✓", "✗")
		fmt.Fprintf(&b, "%2d. %s %s %s\n", i+1, mark, c.name, strings.ReplaceAll(c.arg, "\n", " "))
		if c.summary != "" {
			fmt.Fprintf(&b, "      ⎿ %s\n", c.summary)
		}
	}
	answer := strings.TrimSpace(result)
	if answer == "" {
		answer = strings.TrimSpace(s.answer)
	}
	if answer != "" {
		b.WriteString("\nAnswer:\n" + answer + "\n")
	}
	return b.String()
}
