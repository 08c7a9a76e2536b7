package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// The dialog framework. Every modal question (the plan review, a
// permission question, the undo and memory choices, the /resume and /model
// pickers, and whatever is added later, such as an MCP elicitation form)
// implements dialog; the root model keeps the open ones on a stack, draws
// the top one in place of the editor and routes keys and pastes to it.
//
// A dialog that decides something (runs a call, approves a plan, discards
// files) is guarded here, once for all of them: for armDelay after it
// becomes visible it takes no key at all. A key that reaches it in that
// moment was typed before the user could read the question (an Enter
// finishing a message while the agent worked): its text goes to the
// editor, where the draft stays, and nothing else acts. The moment ends
// with a message in the same queue as the keys, so a key typed before it
// is handled before it, however late a busy machine handles both.

// DefaultDialogDelay is how long a dialog that decides something ignores
// keys after it appears: less than anyone needs to read a question and
// react (~250 ms to react at all), more than the gap between two keys of a
// typist finishing a sentence.
const DefaultDialogDelay = 500 * time.Millisecond

// outcome is what a closed dialog does to the root model; nil does nothing.
type outcome func(m *model) tea.Cmd

// dialog is one modal question.
type dialog interface {
	// key handles a key press. done reports that the dialog is finished:
	// the root closes it, then runs out.
	key(k tea.KeyPressMsg) (out outcome, done bool, cmd tea.Cmd)
	// paste takes pasted text (a note or reason field), or ignores it.
	paste(msg tea.PasteMsg)
	// view draws the dialog; it never grows past v.room rows.
	view(v dialogView) string
	// decides reports whether an answer acts (runs, approves, discards):
	// such a dialog is guarded (DefaultDialogDelay).
	decides() bool
	// dismiss is Ctrl+C: the dialog closes without deciding; out keeps
	// what it held (a typed note goes back to the editor).
	dismiss() outcome
}

// dialogView is what a dialog is drawn with.
type dialogView struct {
	width, room int
	th          theme // the mode's
	runTh       theme // the running turn's: its questions belong to it
	md          *markdown
}

// dialogFrame is an open dialog and its guard.
type dialogFrame struct {
	d     dialog
	id    int
	armed bool
}

// dialogArmedMsg ends the guard of the frame with this id.
type dialogArmedMsg struct{ id int }

// openDialog shows d on top of the open dialogs.
func (m *model) openDialog(d dialog) tea.Cmd {
	f := &dialogFrame{d: d}
	m.dialogs = append(m.dialogs, f)
	m.layout()
	return m.guard(f)
}

// guard holds f's keys back for a moment when it decides something.
func (m *model) guard(f *dialogFrame) tea.Cmd {
	m.dialogSeq++
	f.id, f.armed = m.dialogSeq, !f.d.decides() || m.dialogDelay <= 0
	if f.armed {
		return nil
	}
	return m.after(m.dialogDelay, dialogArmedMsg{id: f.id})
}

func (m *model) onDialogArmed(msg dialogArmedMsg) {
	for _, f := range m.dialogs {
		if f.id == msg.id {
			f.armed = true
		}
	}
}

// topDialog is the dialog keys go to, or nil.
func (m *model) topDialog() *dialogFrame {
	if len(m.dialogs) == 0 {
		return nil
	}
	return m.dialogs[len(m.dialogs)-1]
}

// findDialog returns the open dialog of type T (the newest), if any.
func findDialog[T dialog](m *model) (T, bool) {
	for i := len(m.dialogs) - 1; i >= 0; i-- {
		if d, ok := m.dialogs[i].d.(T); ok {
			return d, true
		}
	}
	var zero T
	return zero, false
}

// dialogKey routes a key to the top dialog.
func (m *model) dialogKey(f *dialogFrame, k tea.KeyPressMsg) tea.Cmd {
	if !f.armed {
		return m.typeAhead(k)
	}
	out, done, cmd := f.d.key(k)
	if !done {
		m.layout()
		return cmd
	}
	return tea.Batch(cmd, m.closeDialog(f.d, out))
}

// typeAhead takes a key that reached a dialog before it could be read:
// text and editing keys go to the editor (drawn under the dialog), other
// keys are dropped, so they answer nothing.
func (m *model) typeAhead(k tea.KeyPressMsg) tea.Cmd {
	if isText(k) || isEditKey(k) || m.in.isNewline(k) {
		cmd := m.in.update(k)
		m.layout()
		return cmd
	}
	m.hint = "a question just opened — that key did not answer it"
	return nil
}

// dialogPaste routes a paste to the top dialog (or, while it is guarded,
// to the editor).
func (m *model) dialogPaste(f *dialogFrame, msg tea.PasteMsg) tea.Cmd {
	if !f.armed {
		cmd := m.in.paste(msg)
		m.layout()
		return cmd
	}
	f.d.paste(msg)
	return nil
}

// closeDialog removes d and runs its outcome. A deciding dialog that is
// uncovered again (a question answered above it) is guarded anew: a
// double Enter must not answer two questions.
func (m *model) closeDialog(d dialog, out outcome) tea.Cmd {
	m.removeDialog(d)
	below := m.topDialog()
	var cmd tea.Cmd
	if out != nil {
		cmd = out(m)
	}
	if top := m.topDialog(); top != nil && top == below && below.armed && below.d.decides() {
		cmd = tea.Batch(cmd, m.guard(below))
	}
	m.layout()
	return cmd
}

// removeDialog drops d from the stack without running anything.
func (m *model) removeDialog(d dialog) {
	for i, f := range m.dialogs {
		if f.d == d {
			m.dialogs = append(m.dialogs[:i:i], m.dialogs[i+1:]...)
			return
		}
	}
}

// dismissDialog is Ctrl+C on the top dialog.
func (m *model) dismissDialog(f *dialogFrame) tea.Cmd {
	return m.closeDialog(f.d, f.d.dismiss())
}

// dialogPane draws the top dialog, with the editor's draft under it when
// there is one (typed ahead, or written before the dialog opened).
func (m *model) dialogPane(f *dialogFrame, room int) string {
	draft := m.draftLine()
	if draft != "" {
		room--
	}
	v := dialogView{width: m.width, room: room, th: themeFor(m.mode), runTh: themeFor(m.runMode), md: m.tr.md}
	s := f.d.view(v)
	if draft != "" {
		s += "\n" + draft
	}
	return s
}

// after is the default timer of the guard: msg arrives after d.
func after(d time.Duration, msg tea.Msg) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return msg })
}

// closeAllDialogs drops every dialog without acting (a new session opens).
// Questions still waiting for an answer are denied.
func (m *model) closeAllDialogs() {
	m.denyPermissions("the session was closed")
	m.cancelInputs()
	m.dialogs = nil
}
