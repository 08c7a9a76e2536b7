package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// tickEvery is the spinner's frame interval while the agent works.
const tickEvery = 120 * time.Millisecond

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// tick schedules the next spinner frame of stream gen.
func tick(gen int) tea.Cmd {
	return tea.Tick(tickEvery, func(time.Time) tea.Msg { return tickMsg{gen: gen} })
}

// handleTick advances the spinner while the stream that started it runs;
// a tick of an ended stream stops the chain.
func (m *model) handleTick(msg tickMsg) tea.Cmd {
	if msg.gen != m.gen || !m.running {
		return nil
	}
	m.spin++
	return tick(m.gen)
}

// progressLine is the line above the editor while the agent works: a
// spinner, the elapsed time, the tokens of this turn, the queue and the
// keys that stop it.
func (m *model) progressLine() string {
	th := themeFor(m.runMode)
	frame := spinnerFrames[m.spin%len(spinnerFrames)]
	parts := []string{"working " + formatElapsed(m.now().Sub(m.startedAt))}
	if m.tokensIn+m.tokensOut > 0 {
		parts = append(parts, "↑ "+formatTokens(m.tokensIn)+" ↓ "+formatTokens(m.tokensOut)+" tokens")
	}
	if n := len(m.queue); n > 0 {
		parts = append(parts, fmt.Sprintf("%d queued", n))
	}
	line := th.accent.Render(" "+frame+" "+parts[0]) + dimStyle.Render(" · "+strings.Join(append(parts[1:], "Esc interrupts · Ctrl+C cancels"), " · "))
	return ansi.Truncate(line, m.width, "…")
}

func formatElapsed(d time.Duration) string {
	d = max(d, 0).Truncate(time.Second)
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// formatTokens writes 1234 as 1.2k.
func formatTokens(n int) string {
	if n < 1000 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%.1fk", float64(n)/1000)
}

// editorPane is the input with what belongs to it: the messages queued
// for the next turn, and the command menu while a command is typed.
func (m *model) editorPane(room int) string {
	var lines []string
	for _, q := range m.queue {
		first, _, more := strings.Cut(q, "\n")
		if more {
			first += " …"
		}
		lines = append(lines, dimStyle.Render(ansi.Truncate("  ⏵ queued: "+first, m.width, "…")))
	}
	lines = append(lines, m.commandMenu(max(room-len(lines)-maxInputLines, 0))...)
	lines = append(lines, m.in.view())
	return strings.Join(lines, "\n")
}

// commandMenu lists the commands matching what is typed after "/", with
// their descriptions, in at most rows lines.
func (m *model) commandMenu(rows int) []string {
	v := m.in.value()
	if rows == 0 || !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \n") {
		return nil
	}
	var out []string
	for _, c := range m.menu() {
		if !strings.HasPrefix(c.name, v) {
			continue
		}
		if len(out) == rows {
			break
		}
		name := fmt.Sprintf("  %-10s", c.name)
		out = append(out, ansi.Truncate(themeFor(m.mode).accent.Render(name)+" "+dimStyle.Render(c.help), m.width, "…"))
	}
	return out
}
