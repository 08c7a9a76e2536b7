package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/harness9/harness9/checkpoint"
)

// Undoer is implemented by engines that keep file checkpoints
// (agent.Engine): /undo and /rewind use it.
type Undoer interface {
	Turns(ctx context.Context) ([]checkpoint.Turn, error)
	RewindConflicts(ctx context.Context, turn int) ([]string, error)
	Rewind(ctx context.Context, turn int, overwrite func(path string) bool) (checkpoint.Report, error)
}

type (
	// turnsMsg carries the turns for /undo (last set) or /rewind.
	turnsMsg struct {
		turns []checkpoint.Turn
		last  bool
		err   error
	}
	// conflictsMsg carries the files a rewind to turn would overwrite.
	conflictsMsg struct {
		turn      int
		conflicts []string
		err       error
	}
	rewoundMsg struct {
		rep checkpoint.Report
		err error
	}
)

func (m *model) undoer() (Undoer, bool) {
	u, ok := m.eng.(Undoer)
	if !ok || m.eng == nil {
		m.hint = "undo is not available: this session keeps no file checkpoints"
	}
	return u, ok
}

func (m *model) cmdUndo(string) tea.Cmd   { return m.loadTurns(true) }
func (m *model) cmdRewind(string) tea.Cmd { return m.loadTurns(false) }

func (m *model) loadTurns(last bool) tea.Cmd {
	u, ok := m.undoer()
	if !ok {
		return nil
	}
	ctx := m.ctx
	return func() tea.Msg {
		turns, err := u.Turns(ctx)
		return turnsMsg{turns: turns, last: last, err: err}
	}
}

// onTurns undoes the last live turn (/undo) or offers a picker (/rewind).
func (m *model) onTurns(msg turnsMsg) tea.Cmd {
	if msg.err != nil {
		m.errorLine("undo: " + msg.err.Error())
		return nil
	}
	var live []checkpoint.Turn
	for _, t := range msg.turns {
		if !t.Rewound {
			live = append(live, t)
		}
	}
	if len(live) == 0 {
		m.note("Nothing to undo: the agent has changed no files in this session (or they were undone).")
		return nil
	}
	if msg.last {
		return m.checkConflicts(live[len(live)-1].Turn)
	}
	d := &choiceDialog{title: "Rewind files to before a turn", body: []string{"The turn chosen and every later one are undone; the transcript is kept."}}
	for i := len(live) - 1; i >= 0; i-- {
		t := live[i]
		d.options = append(d.options, fmt.Sprintf("turn %d: %s — %s", t.Turn, t.Prompt, strings.Join(t.Files, ", ")))
	}
	d.choose = func(m *model, i int) tea.Cmd {
		if i < 0 {
			return nil
		}
		return m.checkConflicts(live[len(live)-1-i].Turn)
	}
	return m.openDialog(d)
}

func (m *model) checkConflicts(turn int) tea.Cmd {
	u, ok := m.undoer()
	if !ok {
		return nil
	}
	ctx := m.ctx
	return func() tea.Msg {
		c, err := u.RewindConflicts(ctx, turn)
		return conflictsMsg{turn: turn, conflicts: c, err: err}
	}
}

// onConflicts rewinds, asking first about files the user changed since
// the agent left them.
func (m *model) onConflicts(msg conflictsMsg) tea.Cmd {
	if msg.err != nil {
		m.errorLine("undo: " + msg.err.Error())
		return nil
	}
	if len(msg.conflicts) == 0 {
		return m.rewind(msg.turn, nil)
	}
	body := append([]string{"Changed since the agent left them:"}, msg.conflicts...)
	return m.openDialog(&choiceDialog{
		title:   fmt.Sprintf("Undo to before turn %d", msg.turn),
		body:    body,
		options: []string{"skip those files, restore the rest", "overwrite them too", "cancel"},
		choose: func(m *model, i int) tea.Cmd {
			switch i {
			case 0:
				return m.rewind(msg.turn, nil)
			case 1:
				return m.rewind(msg.turn, func(string) bool { return true })
			}
			m.note("Undo cancelled; no file was touched.")
			return nil
		},
	})
}

func (m *model) rewind(turn int, overwrite func(string) bool) tea.Cmd {
	u, ok := m.undoer()
	if !ok {
		return nil
	}
	ctx := m.ctx
	return func() tea.Msg {
		rep, err := u.Rewind(ctx, turn, overwrite)
		return rewoundMsg{rep: rep, err: err}
	}
}

func (m *model) onRewound(msg rewoundMsg) {
	if msg.err != nil {
		m.errorLine("undo: " + msg.err.Error())
	}
	if len(msg.rep.Turns) > 0 || msg.err == nil {
		m.note(msg.rep.Summary())
	}
}
