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
	// A hint answers the last thing the user did; the next key makes it stale.
	m.hint = ""
	switch {
	case m.perm != nil:
		return m.permissionKey(k)
	case m.review != nil:
		return m.reviewKey(k)
	case m.picker != nil:
		return m.pickerKey(k)
	}
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
		if m.running {
			return m.steer()
		}
		return nil
	case "enter":
		return m.submit()
	case "tab":
		if matches := m.in.complete(); len(matches) > 0 {
			m.hint = strings.Join(matches, "  ")
		}
		m.layout()
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

// interrupt is Ctrl+C: cancel a running turn (messages queued for it go
// back into the editor, unsent); close a dialog without acting on it; when
// idle, the first press arms and the second quits.
func (m *model) interrupt() tea.Cmd {
	if m.running {
		m.cancelTurn()
		if len(m.queue) > 0 {
			m.in.setValue(strings.Join(m.queue, "\n"))
			m.queue = nil
		}
		m.hint = "cancelling…"
		m.layout()
		return nil
	}
	switch {
	case m.review != nil:
		m.closeReview(fieldText(&m.review.note))
		return nil
	case m.picker != nil:
		m.picker = nil
		m.layout()
		return nil
	}
	if m.quitArmed {
		return tea.Quit
	}
	m.quitArmed = true
	m.hint = "press Ctrl+C again to quit"
	return nil
}

// steer is Esc while the agent works: the turn is interrupted and the
// queued messages (if any) are sent as soon as it has stopped.
func (m *model) steer() tea.Cmd {
	m.cancelTurn()
	if len(m.queue) > 0 {
		m.hint = "interrupting — your queued message goes next"
	} else {
		m.hint = "interrupting…"
	}
	return nil
}

// cancelTurn cancels the running stream; an open permission request is
// denied so the engine is not left waiting.
func (m *model) cancelTurn() {
	if m.cancel != nil {
		m.cancel()
	}
	if m.perm != nil {
		m.perm.req.Respond(agent.Deny, "the user cancelled the turn")
		m.perm = nil
	}
}

// submit sends the input: a slash command, or a prompt (queued while the
// agent works). Only known commands are commands: a prompt that starts
// with a path ("/etc/hosts is wrong") is a prompt.
func (m *model) submit() tea.Cmd {
	text := strings.TrimSpace(m.in.value())
	if text == "" {
		return nil
	}
	if strings.HasPrefix(text, "/") {
		name, _, _ := strings.Cut(text, " ")
		if findCommand(name) != nil {
			save := m.take()
			return tea.Batch(save, m.runSlash(text))
		}
		if !looksLikePath(name) {
			m.hint = "unknown command " + name + " — type /help for the list (nothing was sent)"
			return nil
		}
	}
	save := m.take()
	if m.running {
		m.queue = append(m.queue, text)
		m.hint = "queued — sent when the agent finishes (Esc interrupts it and sends now)"
		m.layout()
		return save
	}
	return tea.Batch(save, m.send(text))
}

// take empties the editor into the input history and returns the command
// that appends the entry to the history file (no I/O inside Update).
func (m *model) take() tea.Cmd {
	s := m.in.take()
	m.layout()
	return appendHistory(m.opts.HistoryFile, s)
}

// looksLikePath reports whether the first word of a line starting with
// "/" is a path (it has another "/" or a dot) rather than a mistyped command.
func looksLikePath(word string) bool {
	return strings.ContainsAny(word[1:], "/.")
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
	if m.review != nil {
		m.review.paste(msg)
		return nil
	}
	if m.picker != nil || m.setup != nil {
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
