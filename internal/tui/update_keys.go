package tui

import (
	"context"
	"iter"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/termtext"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
)

// handleKey routes a key press: global keys first, then the open dialog,
// then the input.
func (m *model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	if m.quitting {
		// The program is ending (a print in flight reaches the terminal
		// first): nothing is acted on any more, no dialog answered, no
		// prompt sent. Text typed now goes to the editor, which Run saves
		// to the history.
		if k.Text != "" && m.setup == nil && !m.in.searching() {
			_ = m.in.update(k)
		}
		return nil
	}
	key := k.String()
	if key != "ctrl+c" {
		m.quitArmed = false
	}
	if m.setup != nil {
		return m.setupKey(key)
	}
	if m.pager != nil {
		return m.pagerKey(k)
	}
	if key == "ctrl+c" {
		return m.interrupt()
	}
	// A hint answers the last thing the user did; the next key makes it stale.
	m.hint = ""
	if f := m.topDialog(); f != nil {
		return m.dialogKey(f, k)
	}
	if m.in.searching() {
		return m.searchKey(k)
	}
	switch key {
	case "shift+tab":
		m.setMode(m.mode.Next())
		return nil
	case "ctrl+o":
		m.openToolPager()
		return nil
	case "ctrl+t":
		m.openTranscriptPager()
		return nil
	case "ctrl+r":
		m.in.startSearch()
		m.layout()
		return nil
	case "pgup", "pgdown":
		if m.inline() {
			m.hint = "the conversation is in your terminal's scrollback: scroll it there (Shift+PgUp in most terminals), or Ctrl+T to search it here"
			return nil
		}
		page := max(m.tr.height-1, 1)
		if key == "pgup" {
			page = -page
		}
		m.tr.scroll(page)
		return nil
	case "end":
		if m.in.value() == "" && !m.inline() {
			m.tr.toEnd()
			return nil
		}
	case "home":
		if m.in.value() == "" && !m.inline() {
			m.tr.toStart()
			return nil
		}
	case "esc":
		if m.running {
			return m.steer()
		}
		return nil
	case "enter":
		if m.in.continuation() {
			m.layout()
			return nil
		}
		return m.submit()
	case "tab":
		if _, ok := m.in.mention(); ok && (m.opts.Files != nil || len(m.opts.Mentions) > 0) {
			return m.mentionTab()
		}
		if matches := m.in.complete(m.menu()); len(matches) > 0 {
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

// interrupt is Ctrl+C. One press does the least destructive thing there
// is to do: close a dialog without acting on it; put a draft away into the
// history (↑ brings it back); cancel the running turn (messages queued for
// it go back into the editor, unsent). A second press right after quits,
// whatever the first did: two Ctrl+C always leave.
func (m *model) interrupt() tea.Cmd {
	if m.quitArmed {
		return m.quit()
	}
	m.quitArmed = true
	const again = " · Ctrl+C again quits"
	if f := m.topDialog(); f != nil {
		if _, ok := f.d.(*permissionDialog); ok && m.running {
			// The question belongs to the turn: cancelling the turn answers it.
			cmd := m.cancelRunning()
			m.hint += again
			return cmd
		}
		cmd := m.dismissDialog(f)
		if m.hint == "" {
			m.hint = "closed" + again
		} else {
			m.hint += again
		}
		return cmd
	}
	if m.in.searching() {
		m.in.endSearch(false)
	}
	if strings.TrimSpace(m.in.value()) != "" {
		save := m.take()
		m.hint = "draft cleared — it is in the history (↑ brings it back)" + again
		return save
	}
	if m.running {
		cmd := m.cancelRunning()
		m.hint += again
		return cmd
	}
	m.hint = "press Ctrl+C again to quit"
	return nil
}

// cancelRunning cancels the running turn; its queued messages go back into
// the editor, unsent.
func (m *model) cancelRunning() tea.Cmd {
	m.cancelTurn()
	if len(m.queue) > 0 {
		m.in.restore(strings.Join(m.queue, "\n"))
		m.queue = nil
	}
	m.hint = "cancelling…"
	m.layout()
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
	m.denyPermissions("the user cancelled the turn")
	m.cancelInputs()
	m.layout()
}

// submit sends the input: a slash command, or a prompt (queued while the
// agent works). Only known commands are commands: a prompt that starts
// with a path ("/etc/hosts is wrong") is a prompt.
func (m *model) submit() tea.Cmd {
	text := strings.TrimSpace(m.in.expandPastes(m.in.value()))
	if text == "" {
		return nil
	}
	if strings.HasPrefix(text, "/") {
		name, _, _ := strings.Cut(text, " ")
		if findCommand(name) != nil {
			save := m.take()
			return tea.Batch(save, m.runSlash(text))
		}
		if !looksLikePath(name) && !m.isCustom(name) {
			m.hint = "unknown command " + name + " — type /help for the list (nothing was sent)"
			return nil
		}
	}
	if strings.HasPrefix(text, "#") && m.opts.Memory != nil {
		// A note for memory, never sent to the model.
		return tea.Batch(m.take(), m.addNote(text))
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
	if cmd := m.attach(prompt); cmd != nil {
		return cmd // sent by sendWith once its images are loaded
	}
	return m.sendWith(prompt, nil)
}

// sendWith starts a run with the user's prompt and its images.
func (m *model) sendWith(prompt string, images []llm.Image) tea.Cmd {
	line, eng := prompt, m.eng
	rw, with := eng.(runnerWith)
	if len(images) > 0 && !with {
		m.hint = "this session cannot take images (nothing was sent)"
		return nil
	}
	var o agent.RunOptions
	custom := false
	if m.opts.Expand != nil {
		if expanded, eo, note, ok := m.opts.Expand(prompt); ok {
			// A custom command: the transcript shows the line typed, the
			// model gets the expanded prompt with the command's options.
			if !with && (eo.Model != "" || len(eo.AllowedTools) > 0) {
				m.hint = "this session cannot run a command with a model or allowed-tools of its own (nothing was sent)"
				return nil
			}
			if note != "" {
				m.note(note)
			}
			prompt, o, custom = expanded, eo, true
		}
	}
	run := func(ctx context.Context, prompt string, images []llm.Image) iter.Seq[agent.Event] {
		if !with || (!custom && len(images) == 0) {
			return eng.Run(ctx, prompt)
		}
		ro := o
		ro.Images = images
		return rw.RunWith(ctx, prompt, ro)
	}
	m.tr.add(&block{kind: blockUser, text: line})
	m.tr.toEnd()
	attach := m.opts.Attach
	if attach == nil {
		return m.startStream(func(ctx context.Context) iter.Seq[agent.Event] { return run(ctx, prompt, images) })
	}
	return m.startStream(func(ctx context.Context) iter.Seq[agent.Event] {
		a, err := attach(ctx, prompt)
		return func(yield func(agent.Event) bool) {
			switch {
			case err != nil:
				yield(agent.Error{Message: err.Error()})
				return
			case len(a.Images) > 0 && !with:
				yield(agent.Error{Message: "this session cannot take images; nothing was sent"})
				return
			case a.Summary != "" && !yield(attachedNote{a.Summary}):
				return
			}
			run(ctx, a.Prompt, append(slices.Clip(images), a.Images...))(yield)
		}
	})
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
	// Terminals send a paste's line breaks as CR (tmux, most bracketed
	// pastes), CRLF or LF: all of them are line breaks.
	msg.Content = normalizeNewlines(msg.Content)
	if m.quitting {
		// As for keys (handleKey): kept in the editor, acted on by nothing.
		if m.setup == nil && !m.in.searching() {
			_ = m.in.paste(msg)
		}
		return nil
	}
	if f := m.topDialog(); f != nil {
		return m.dialogPaste(f, msg)
	}
	if m.setup != nil || m.in.searching() {
		return nil
	}
	cmd := m.in.paste(msg)
	m.layout()
	return cmd
}

func (m *model) handleWheel(msg tea.MouseWheelMsg) {
	if m.inline() {
		return // the terminal scrolls its own scrollback
	}
	switch msg.Button {
	case tea.MouseWheelUp:
		m.tr.scroll(-3)
	case tea.MouseWheelDown:
		m.tr.scroll(3)
	}
}

// searchKey handles a key while Ctrl+R history search is open: typing
// narrows, Ctrl+R goes to an older match, Enter puts the match in the
// editor (not sent), Esc or Ctrl+G restores what was there.
func (m *model) searchKey(k tea.KeyPressMsg) tea.Cmd {
	switch key := k.String(); key {
	case "enter", "tab", "right", "left":
		m.in.endSearch(true)
	case "esc", "ctrl+g":
		m.in.endSearch(false)
	case "ctrl+r", "up":
		m.in.searchOlder()
	case "down":
		m.in.searchNewer()
	case "backspace":
		m.in.searchBackspace()
	default:
		if t := k.Text; t != "" {
			m.in.searchType(t)
		}
	}
	m.layout()
	return nil
}

// attachedNote is shown before a run whose prompt attached files; it is
// the TUI's own event, not the engine's.
type attachedNote struct{ text string }

func (attachedNote) Type() string { return "attached" }

// quit leaves the program. A draft in the editor goes to the history
// first, so quitting never loses what was typed. A print in flight
// reaches the terminal before the program ends (printedMsg quits then),
// so what Run writes after the program is exactly what was never printed;
// should its printedMsg never come, the program ends after printWait.
func (m *model) quit() tea.Cmd {
	m.quitting = true
	end := tea.Quit
	if m.printing {
		end = tea.Tick(printWait, func(time.Time) tea.Msg { return tea.QuitMsg{} })
	}
	if save := m.take(); save != nil {
		return tea.Sequence(save, end)
	}
	return end
}

// draftLine is the editor's text in one dim line, shown under a dialog
// (which hides the editor) so text typed ahead is seen to be kept.
func (m *model) draftLine() string {
	v := strings.TrimSpace(m.in.value())
	if v == "" {
		return ""
	}
	first, _, more := strings.Cut(v, "\n")
	if more {
		first += " …"
	}
	return dimStyle.Render(ansi.Truncate("  ✎ your draft is kept in the editor: "+termtext.Clean(first), m.width, "…"))
}
