package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// setupView is the first screen when no provider is configured. It says
// what to set, in the user's terms, and offers the scripted demo.
func (m *model) setupView() string {
	s := m.setup
	th := themeFor(0)
	var b strings.Builder
	b.WriteString(th.accent.Bold(true).Render("Welcome to harness9") + "\n\n")
	if s.Problem != "" {
		b.WriteString(warnStyle.Render("No model is ready: "+s.Problem) + "\n\n")
	} else {
		b.WriteString(warnStyle.Render("No model provider is configured yet.") + "\n\n")
	}
	b.WriteString("To talk to a model, set one API key and start harness9 again:\n\n")
	b.WriteString("  export OPENAI_API_KEY=sk-...       " + dimStyle.Render("harness9 -m openai/gpt-4.1") + "\n")
	b.WriteString("  export ANTHROPIC_API_KEY=sk-ant-.. " + dimStyle.Render("harness9 -m anthropic/claude-sonnet-4-5") + "\n\n")
	b.WriteString("Pick the model with " + boldStyle.Render("-m provider/model") + " or " + boldStyle.Render("HARNESS9_MODEL") + ".\n")
	b.WriteString("OpenAI-compatible servers (Ollama, vLLM, DeepSeek …) go in the config file")
	if s.ConfigPath != "" {
		b.WriteString(":\n  " + s.ConfigPath)
	}
	b.WriteString("\n\n")
	if s.StartDemo != nil {
		b.WriteString(th.accent.Bold(true).Render("[d]") + " try the scripted demo (no model, no network)   ")
	}
	b.WriteString(dimStyle.Render("[q] quit"))
	if m.hint != "" {
		b.WriteString("\n\n" + errorStyle.Render(m.hint))
	}
	box := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(colAccent).
		Padding(1, 2).Width(min(m.width, 84)).Render(b.String())
	return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, box)
}

func (m *model) setupKey(key string) tea.Cmd {
	switch key {
	case "q", "esc", "ctrl+c":
		return tea.Quit
	case "d", "enter":
		if m.setup.StartDemo == nil {
			return nil
		}
		start := m.setup.StartDemo
		m.hint = ""
		return func() tea.Msg {
			opts, err := start()
			return demoReadyMsg{opts: opts, err: err}
		}
	}
	return nil
}

// handleDemoReady swaps the setup screen for the demo session.
func (m *model) handleDemoReady(msg demoReadyMsg) tea.Cmd {
	if msg.err != nil {
		m.hint = "The demo could not start: " + msg.err.Error()
		return nil
	}
	opts := msg.opts
	if opts.Now == nil {
		opts.Now = m.now
	}
	m.opts, m.setup = opts, nil
	m.setModeLocal(opts.InitialMode)
	if opts.ContextWindow > 0 {
		m.ctxWindow = opts.ContextWindow
	}
	if opts.InitialPrompt != "" {
		m.in.setValue(opts.InitialPrompt)
	}
	m.layout()
	return tea.Batch(m.openEngine(opts.ResumeID, false), m.waitNotice())
}
