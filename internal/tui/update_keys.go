package tui

import (
	"context"
	"iter"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/planning"
)

// handleKey routes a key press: global keys first, then the open dialog,
// then the input.
func (m *model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	key := k.String()
	if key != "ctrl+c" {
		m.quitArmed = false
	}
	if m.setup != nil {
		return m.setupKey(key)
	}
	if key == "ctrl+c" {
		return m.interrupt()
	}
	switch {
	case m.perm != nil:
		return m.permissionKey(k)
	case m.review != nil:
		return m.reviewKey(k)
	case m.picker != nil:
		return m.pickerKey(k)
	}
	m.hint = ""
	switch key {
	case "shift+tab":
		m.setMode(m.mode.Next())
		return nil
	case "pgup":
		m.tr.scroll(-max(m.tr.height-1, 1))
		return nil
	case "pgdown":
		m.tr.scroll(max(m.tr.height-1, 1))
		return nil
	case "end":
		if m.in.value() == "" {
			m.tr.toEnd()
			return nil
		}
	case "home":
		if m.in.value() == "" {
			m.tr.toStart()
			return nil
		}
	case "esc":
		return nil
	case "enter":
		return m.submit()
	case "tab":
		if matches := m.in.complete(); len(matches) > 0 {
			m.hint = strings.Join(matches, "  ")
		}
		return nil
	case "up":
		if m.in.browsing() {
			m.in.historyUp()
			return nil
		}
	case "down":
		if m.in.browsing() {
			m.in.historyDown()
			return nil
		}
	}
	cmd := m.in.update(k)
	m.layout()
	return cmd
}

// interrupt is Ctrl+C: cancel a running turn; when idle, the first press
// arms and the second quits.
func (m *model) interrupt() tea.Cmd {
	if m.running {
		if m.cancel != nil {
			m.cancel()
		}
		if m.perm != nil {
			m.perm.req.Respond(0, "the user cancelled the turn")
			m.perm = nil
		}
		m.hint = "cancelling…"
		return nil
	}
	if m.review != nil || m.picker != nil {
		m.review, m.picker = nil, nil
		m.hint = "dialog closed — the plan is still pending (/plan to refine, /code to leave Plan Mode)"
		return nil
	}
	if m.quitArmed {
		return tea.Quit
	}
	m.quitArmed = true
	m.hint = "press Ctrl+C again to quit"
	return nil
}

// submit sends the input: a slash command or a prompt.
func (m *model) submit() tea.Cmd {
	text := strings.TrimSpace(m.in.value())
	if text == "" {
		return nil
	}
	if m.running && !strings.HasPrefix(text, "/") {
		m.hint = "the agent is working — wait for it, or Ctrl+C to cancel"
		return nil
	}
	m.in.take()
	m.layout()
	if strings.HasPrefix(text, "/") {
		return m.runSlash(text)
	}
	return m.send(text)
}

// send starts a run with the user's prompt.
func (m *model) send(prompt string) tea.Cmd {
	if m.eng == nil {
		m.hint = "no session yet"
		return nil
	}
	m.tr.add(&block{kind: blockUser, text: prompt})
	m.tr.toEnd()
	return m.startStream(func(ctx context.Context) iter.Seq[agent.Event] { return m.eng.Run(ctx, prompt) })
}

// setMode changes the mode for the next run (a running loop keeps its
// snapshot; the engine decides).
func (m *model) setMode(md planning.Mode) {
	m.setModeLocal(md)
	if m.eng != nil {
		m.eng.SetMode(md)
	}
}

// setModeLocal changes what the TUI shows, not the engine.
func (m *model) setModeLocal(md planning.Mode) {
	m.mode = md
	m.in.setAccent(themeFor(md).accent)
}

func (m *model) handlePaste(msg tea.PasteMsg) tea.Cmd {
	if m.perm != nil {
		m.perm.paste(msg)
		return nil
	}
	if m.review != nil || m.picker != nil || m.setup != nil {
		return nil
	}
	cmd := m.in.update(msg)
	m.layout()
	return cmd
}

func (m *model) handleWheel(msg tea.MouseWheelMsg) {
	switch msg.Button {
	case tea.MouseWheelUp:
		m.tr.scroll(-3)
	case tea.MouseWheelDown:
		m.tr.scroll(3)
	}
}

func (m *model) reviewKey(k tea.KeyPressMsg) tea.Cmd {
	choice := m.review.update(k)
	if choice == reviewNone {
		return nil
	}
	m.review = nil
	m.layout()
	switch choice {
	case reviewApproveAuto, reviewApproveEdit:
		confirm := choice == reviewApproveEdit
		if confirm {
			m.note("Plan approved — executing; each edit asks for confirmation.")
		} else {
			m.note("Plan approved — executing automatically.")
		}
		m.plan = nil
		return m.startStream(func(ctx context.Context) iter.Seq[agent.Event] { return m.eng.Approve(ctx, confirm) })
	case reviewRefine:
		m.setMode(planning.ModePlan)
		m.note("Still in Plan Mode — type what should change; the agent will revise the plan.")
	case reviewCancel:
		m.plan = nil
		if err := m.eng.CancelPlan(); err != nil {
			m.errorLine("could not cancel the plan: " + err.Error())
		} else {
			m.note("Plan cancelled.")
		}
		m.todos = m.eng.Todos()
	}
	return nil
}

func (m *model) permissionKey(k tea.KeyPressMsg) tea.Cmd {
	ans, cmd := m.perm.update(k)
	if ans == nil {
		return cmd
	}
	m.perm.req.Respond(ans.decision, ans.reason)
	name := m.perm.req.Call.Name
	m.perm = nil
	m.layout()
	switch ans.decision {
	case agent.AllowSession:
		m.note("allowed " + name + " for this session")
	case agent.Deny:
		m.note("denied " + name + ": " + ans.reason)
	}
	return nil
}

func (m *model) pickerKey(k tea.KeyPressMsg) tea.Cmd {
	id, cancelled := m.picker.update(k)
	switch {
	case cancelled:
		m.picker = nil
	case id != "":
		m.picker = nil
		m.tr.clear()
		m.layout()
		return m.openEngine(id)
	}
	m.layout()
	return nil
}
