package tui

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
)

// contexter is an Engine that reports the context size of the session's
// last model call, as saved (*agent.Engine): a session opened again shows
// the context gauge it had.
type contexter interface {
	LastContextTokens() int
}

// describer is an Engine that says how a stored tool result was shown
// (*agent.Engine): its summary and whether it is a diff.
type describer interface {
	DescribeResult(call llm.ToolCall, output string, isError bool) (summary string, diff bool)
}

// handleEngineReady installs a new engine (start, /new, /resume, /model).
// A session that cannot be opened leaves the current one as it was. With
// keep (/model: the same session on another model) the transcript, the
// totals and the context gauge stay exactly as they are.
func (m *model) handleEngineReady(msg engineReadyMsg) tea.Cmd {
	m.loading = false
	if msg.err != nil {
		switch {
		case msg.keep:
			m.errorLine(fmt.Sprintf("Could not reopen the session on %s: %v — the session is unchanged.", m.opts.ModelLabel, msg.err))
		case msg.replace && m.eng != nil && msg.id != "":
			m.errorLine(fmt.Sprintf("Could not open session %s: %v — still in session %s.", msg.id, msg.err, shortID(m.sessionID)))
		case msg.replace && m.eng != nil:
			m.errorLine(fmt.Sprintf("Could not start a new session: %v — still in session %s.", msg.err, shortID(m.sessionID)))
		default:
			m.errorLine("Could not open the session: " + msg.err.Error())
		}
		return nil
	}
	if msg.keep && m.eng != nil {
		// A session with no history yet is opened afresh (id ""): its id
		// is the new engine's.
		m.eng = msg.eng
		m.sessionID = m.eng.SessionID()
		m.eng.SetMode(m.mode)
		if msg.reopened != "" {
			m.note(msg.reopened)
		}
		m.layout()
		return nil
	}
	if msg.replace {
		m.tr.clear()
		if m.inline() {
			m.note("── " + map[bool]string{true: "session " + shortID(msg.id), false: "new session"}[msg.id != ""] + " ──")
		}
	}
	m.eng = msg.eng
	m.sessionID = m.eng.SessionID()
	m.todos = m.eng.Todos()
	m.plan, m.calls, m.stream = nil, map[string]*block{}, nil
	m.closeAllDialogs()
	m.loadTotals(msg.usage)
	if len(msg.history) == 0 {
		m.eng.SetMode(m.mode)
		m.welcome()
	} else {
		m.setModeLocal(m.eng.Mode())
		m.replay(msg.history)
		m.note("Resumed session " + shortID(m.sessionID) + ".")
	}
	var review tea.Cmd
	if m.eng.NextStep() == planning.StepReview {
		if p := m.eng.Plan(); p != nil {
			m.plan = p
			m.tr.add(&block{kind: blockPlan, plan: p})
			review = m.openReview("")
		}
	}
	m.layout()
	if review != nil || m.plan != nil {
		return review
	}
	if m.opts.AutoSend && m.in.value() != "" {
		m.opts.AutoSend = false // once, for the first session only
		text := strings.TrimSpace(m.in.value())
		save := m.take()
		return tea.Batch(save, m.send(text))
	}
	return nil
}

// loadTotals sets the session's token totals and cost from its usage by
// model (Options.Usage, read with the session) and its context size from
// the engine, as they were saved.
func (m *model) loadTotals(usage map[string]llm.Usage) {
	m.totalIn, m.totalOut, m.cost, m.costKnown, m.ctxTokens = 0, 0, 0, true, 0
	for _, model := range slices.Sorted(maps.Keys(usage)) {
		m.addUsageOf(model, usage[model])
	}
	if c, ok := m.eng.(contexter); ok {
		m.ctxTokens = c.LastContextTokens()
	}
}

// welcome is the first screen of a new session.
func (m *model) welcome() {
	text := "harness9 — a terminal coding agent"
	if m.opts.Workdir != "" {
		text += "\nworkdir: " + m.opts.Workdir
	}
	text += "\nShift+Tab switches mode (Plan Mode explores read-only and asks you to approve a plan) · /help lists commands · Ctrl+C twice or /exit quits"
	switch {
	case m.in.value() != "" && m.opts.AutoSend:
		text += "\nThe demo sends its task by itself; you take over at the plan review."
	case m.in.value() != "":
		text += "\nThe prompt below is ready — press Enter to send it."
	}
	m.tr.add(&block{kind: blockNotice, text: text})
	m.tr.add(&block{kind: blockNotice, text: ""})
}

// replay rebuilds the transcript of a resumed session from its history, as
// it was shown: the user's words without the Plan-Mode preamble, harness9's
// own notes as notes, tool results with their summaries and diffs, a todo
// snapshot after each todo list, the plan after submit_plan.
func (m *model) replay(hist []llm.Message) {
	desc, _ := m.eng.(describer)
	pending := map[string]llm.ToolCall{}
	for _, msg := range hist {
		switch msg.Role {
		case llm.RoleUser:
			m.replayUser(msg)
		case llm.RoleAssistant:
			if strings.TrimSpace(msg.Content) != "" {
				m.tr.add(&block{kind: blockAssistant, text: msg.Content})
			}
			for _, c := range msg.ToolCalls {
				m.calls[c.ID] = m.tr.add(&block{kind: blockTool, callID: c.ID, name: c.Name, arg: keyArg(c.Name, c.Input)})
				pending[c.ID] = c
			}
		case llm.RoleTool:
			b := m.calls[msg.ToolCallID]
			if b == nil {
				continue
			}
			b.done, b.isError, b.result = true, msg.IsError, msg.Content
			call := pending[msg.ToolCallID]
			if desc != nil {
				b.summary, b.diff = desc.DescribeResult(call, msg.Content, msg.IsError)
			}
			delete(m.calls, msg.ToolCallID)
			if !msg.IsError {
				m.replayPlanning(call, msg.Content)
			}
		}
	}
	m.calls = map[string]*block{}
}

// replayUser shows a stored user message as it was shown when sent.
func (m *model) replayUser(msg llm.Message) {
	text := userText(msg)
	switch {
	case strings.HasPrefix(text, agent.NotePrefix):
		m.note(strings.TrimPrefix(text, agent.NotePrefix))
	case strings.HasPrefix(text, agent.StopHookNote):
		m.note("⛔ stop hook: " + strings.TrimPrefix(text, agent.StopHookNote))
	default:
		m.tr.add(&block{kind: blockUser, text: strings.TrimPrefix(text, planning.PlanModePrefix)})
	}
}

// replayPlanning adds what the planning tools showed live: the todo
// snapshot of a todo list written, the plan submitted.
func (m *model) replayPlanning(call llm.ToolCall, output string) {
	switch call.Name {
	case planning.TodoWriteName:
		var items []planning.TodoItem
		if json.Unmarshal([]byte(output), &items) == nil && len(items) > 0 {
			m.tr.add(&block{kind: blockTodos, todos: items})
		}
	case planning.SubmitPlanName:
		var p planning.Plan
		if json.Unmarshal(call.Input, &p) == nil && p.Title != "" {
			m.tr.add(&block{kind: blockPlan, plan: &p})
		}
	}
}
