package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
)

// handleEvent folds one engine event into the state.
func (m *model) handleEvent(ev agent.Event) tea.Cmd {
	switch ev := ev.(type) {
	case agent.SessionStarted:
		m.sessionID = ev.SessionID
		m.runMode = ev.Mode // the mode this run actually uses
	case agent.TextDelta:
		if m.stream == nil {
			m.stream = m.tr.add(&block{kind: blockAssistant, streaming: true})
		}
		m.stream.text += ev.Text
		m.stream.dirty = true
	case agent.ReasoningDelta:
		// Reasoning is kept in the store for audit; the transcript shows replies.
	case agent.Text:
		m.finishText(ev.Text)
	case agent.ToolCall:
		m.finishText("")
		m.calls[ev.ID] = m.tr.add(&block{kind: blockTool, callID: ev.ID, name: ev.Name, arg: keyArg(ev.Name, ev.Input), expanded: m.expandTools})
	case attachedNote:
		m.note(ev.text)
	case agent.ToolOutput:
		if b := m.calls[ev.ID]; b != nil {
			b.live = keepTail(b.live+ev.Text, maxLiveOutput)
			b.dirty = true
		}
	case agent.ToolResult:
		b := m.calls[ev.ID]
		if b == nil {
			b = m.tr.add(&block{kind: blockTool, callID: ev.ID, name: ev.Name})
		}
		delete(m.calls, ev.ID)
		b.done, b.isError, b.result, b.summary, b.diff, b.dirty = true, ev.IsError, ev.Output, ev.Summary, ev.Diff, true
		b.live = ""
		if b.subCalls+b.subTokens > 0 && b.summary == "" {
			// A sub-agent's block stays collapsed: its status, then the
			// first line of its answer.
			b.summary = subStatus(b) + " · " + firstAndCount(strings.TrimSpace(ev.Output))
		}
	case agent.Todos:
		// Appended, not replaced: scrolling up shows how the work progressed.
		m.todos = ev.Items
		m.tr.add(&block{kind: blockTodos, todos: ev.Items})
	case agent.PlanSubmitted:
		p := ev.Plan
		m.plan, m.planFresh = &p, true
	case agent.Approved:
		m.note("Task directory: " + ev.TaskDir)
		// Approving switched the engine out of Plan Mode.
		m.setModeLocal(m.eng.Mode())
	case agent.ExecRound:
		e := ev
		m.exec = &e
		m.note(fmt.Sprintf("── auto-execution round %d · %d/%d tasks done ──", ev.Round, ev.Done, ev.Total))
	case agent.Stalled:
		done, _, total := planning.Progress(m.todos)
		m.tr.add(&block{kind: blockWarn, text: fmt.Sprintf(
			"⚠ Auto-execution stalled: %d rounds without a completed task (%d/%d done). "+
				"You have control — send a message to steer the agent, /continue to resume, /todos to review.",
			ev.Rounds, done, total)})
	case agent.Compacted:
		text := fmt.Sprintf("history compacted: ~%d → ~%d tokens", ev.BeforeTokens, ev.AfterTokens)
		if !ev.Summarised {
			text = fmt.Sprintf("older tool outputs shortened: ~%d → ~%d tokens", ev.BeforeTokens, ev.AfterTokens)
		}
		if ev.Fallback {
			text += " (fallback: " + ev.Note + ")"
		}
		m.note(text)
		// The status bar shows the whole request: the history and the
		// system prompt and tools every request carries.
		m.ctxTokens = ev.AfterTokens + ev.FixedTokens
	case agent.UsageUpdate:
		m.tokensIn += ev.Usage.InputTokens
		m.tokensOut += ev.Usage.OutputTokens
		m.addUsage(ev.Usage)
		m.ctxTokens = ev.ContextTokens
		if ev.ContextWindow > 0 {
			m.ctxWindow = ev.ContextWindow
		}
	case agent.HookReport:
		if ev.Blocked {
			m.note(fmt.Sprintf("⛔ %s blocked: %s", ev.Hook, ev.Message))
		} else {
			m.errorLine(fmt.Sprintf("⚠ %s failed: %s", ev.Hook, ev.Message))
		}
	case agent.Error:
		m.sawError = true
		m.errorLine("✗ " + ev.Message)
	case agent.ModelRetry:
		// The streamed part of the answer is void: it stays on screen,
		// marked, and the answer asked again starts a block of its own.
		if m.stream != nil {
			m.stream.text += " … (broke off)"
			m.stream.streaming, m.stream.dirty = false, true
			m.stream = nil
		}
		m.note(fmt.Sprintf("The model's answer broke off (%v); asking again (attempt %d).", ev.Err, ev.Attempt))
	case *agent.ApprovalRequest:
		if m.perm != nil {
			// Sub-agents running in parallel can ask at once: each
			// question waits its turn, none is dropped (its tool would
			// wait for an answer that never comes).
			m.permQueue = append(m.permQueue, ev)
			return nil
		}
		m.perm = newPermissionDialog(ev)
		m.layout()
	case agent.Done:
		m.finishText("")
		m.handleDone(ev)
	case agent.Nested:
		m.handleNested(ev)
	}
	return nil
}

// handleNested folds a sub-agent's event into the block of the task call
// that started it: one collapsed block with a status line ("12 tool calls ·
// 3.1k tokens"). Its token use counts toward the session's totals; the
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
	b := m.calls[n.Parent]
	switch e := inner.(type) {
	case agent.ToolCall:
		if b != nil {
			b.subCalls++
		}
	case agent.UsageUpdate:
		m.tokensIn += e.Usage.InputTokens
		m.tokensOut += e.Usage.OutputTokens
		m.addUsage(e.Usage)
		if b != nil {
			b.subTokens += e.Usage.InputTokens + e.Usage.OutputTokens
		}
	default:
		return
	}
	if b != nil {
		b.live, b.dirty = subStatus(b), true
	}
}

// subStatus is a sub-agent's one-line status.
func subStatus(b *block) string {
	calls := "tool calls"
	if b.subCalls == 1 {
		calls = "tool call"
	}
	return fmt.Sprintf("%d %s · %s tokens", b.subCalls, calls, formatTokens(b.subTokens))
}

// finishText completes the streamed assistant message (rendering it as
// Markdown from now on). A whole message without deltas gets its own block.
func (m *model) finishText(text string) {
	if m.stream == nil {
		if strings.TrimSpace(text) != "" {
			m.tr.add(&block{kind: blockAssistant, text: text})
		}
		return
	}
	if text != "" {
		m.stream.text = text
	}
	m.stream.streaming, m.stream.dirty = false, true
	m.stream = nil
}

func (m *model) handleDone(ev agent.Done) {
	switch ev.Status {
	case agent.RunCancelled:
		m.note("Cancelled. What was said so far and the todo list are saved.")
	case agent.RunMaxTurns:
		m.tr.add(&block{kind: blockWarn, text: "⚠ The turn limit was reached; send a message to let the agent go on."})
	case agent.RunStalled:
		// The Stalled event already said it.
	case agent.RunError:
		if !m.sawError && ev.Err != nil { // normally an Error event said it
			m.errorLine("✗ " + ev.Err.Error())
		}
	}
}

// handleStreamEnd runs once a stream is fully drained.
func (m *model) handleStreamEnd() tea.Cmd {
	m.running, m.events, m.exec = false, nil, nil
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	if m.perm != nil { // the run ended while asking: nobody waits any more
		m.perm = nil
	}
	m.permQueue = nil
	for id, b := range m.calls { // calls that never got a result
		b.done, b.isError, b.result, b.dirty = true, true, "interrupted", true
		delete(m.calls, id)
	}
	m.hint = "" // hints about the turn are stale now
	if m.eng != nil {
		m.setModeLocal(m.eng.Mode())
	}
	queued := m.queue
	m.queue = nil
	fresh := m.planFresh && m.plan != nil
	m.planFresh = false
	if fresh {
		// Messages typed while the plan was made become the note in the
		// dialog: the user sends them as feedback with Enter, or clears them.
		m.tr.add(&block{kind: blockPlan, plan: m.plan})
		m.openReview(strings.Join(queued, " "))
		return nil
	}
	m.layout()
	if len(queued) > 0 {
		return m.send(strings.Join(queued, "\n\n"))
	}
	return nil
}

// handleEngineReady installs a new engine (start, /new, /resume). A
// session that cannot be opened leaves the current one as it was.
func (m *model) handleEngineReady(msg engineReadyMsg) tea.Cmd {
	m.loading = false
	if msg.err != nil {
		switch {
		case msg.replace && m.eng != nil && msg.id != "":
			m.errorLine(fmt.Sprintf("Could not open session %s: %v — still in session %s.", msg.id, msg.err, shortID(m.sessionID)))
		case msg.replace && m.eng != nil:
			m.errorLine(fmt.Sprintf("Could not start a new session: %v — still in session %s.", msg.err, shortID(m.sessionID)))
		default:
			m.errorLine("Could not open the session: " + msg.err.Error())
		}
		return nil
	}
	if msg.replace {
		m.tr.clear()
	}
	m.eng = msg.eng
	m.sessionID = m.eng.SessionID()
	m.todos = m.eng.Todos()
	m.plan, m.review, m.perm, m.calls, m.stream = nil, nil, nil, map[string]*block{}, nil
	m.ctxTokens = 0
	if m.sessionID != m.totalsFor {
		m.totalIn, m.totalOut, m.cost, m.costKnown, m.totalsFor = 0, 0, 0, true, m.sessionID
	}
	if len(msg.history) == 0 {
		m.eng.SetMode(m.mode)
		m.welcome()
	} else {
		m.setModeLocal(m.eng.Mode())
		m.replay(msg.history)
		m.note("Resumed session " + shortID(m.sessionID) + ".")
	}
	if m.eng.NextStep() == planning.StepReview {
		if p := m.eng.Plan(); p != nil {
			m.plan = p
			m.tr.add(&block{kind: blockPlan, plan: p})
			m.openReview("")
		}
	}
	m.layout()
	if m.opts.AutoSend && m.in.value() != "" && m.review == nil {
		m.opts.AutoSend = false // once, for the first session only
		text := strings.TrimSpace(m.in.value())
		save := m.take()
		return tea.Batch(save, m.send(text))
	}
	return nil
}

// welcome is the first screen of a new session.
func (m *model) welcome() {
	text := "harness9 — a terminal coding agent"
	if m.opts.Workdir != "" {
		text += "\nworkdir: " + m.opts.Workdir
	}
	text += "\nShift+Tab switches mode (Plan Mode explores read-only and asks you to approve a plan) · /help lists commands"
	switch {
	case m.in.value() != "" && m.opts.AutoSend:
		text += "\nThe demo sends its task by itself; you take over at the plan review."
	case m.in.value() != "":
		text += "\nThe prompt below is ready — press Enter to send it."
	}
	m.tr.add(&block{kind: blockNotice, text: text})
	m.tr.add(&block{kind: blockNotice, text: ""})
}

// replay rebuilds the transcript of a resumed session from its history.
func (m *model) replay(hist []llm.Message) {
	for _, msg := range hist {
		switch msg.Role {
		case llm.RoleUser:
			m.tr.add(&block{kind: blockUser, text: userText(msg)})
		case llm.RoleAssistant:
			if strings.TrimSpace(msg.Content) != "" {
				m.tr.add(&block{kind: blockAssistant, text: msg.Content})
			}
			for _, c := range msg.ToolCalls {
				m.calls[c.ID] = m.tr.add(&block{kind: blockTool, callID: c.ID, name: c.Name, arg: keyArg(c.Name, c.Input)})
			}
		case llm.RoleTool:
			if b := m.calls[msg.ToolCallID]; b != nil {
				b.done, b.isError, b.result = true, msg.IsError, msg.Content
				delete(m.calls, msg.ToolCallID)
			}
		}
	}
	m.calls = map[string]*block{}
}

func (m *model) handleSessions(msg sessionsMsg) {
	switch {
	case msg.err != nil:
		m.errorLine("Could not list sessions: " + msg.err.Error())
	case len(msg.list) == 0:
		m.note("No earlier sessions in this workdir.")
	default:
		m.picker = &resumePicker{items: msg.list, now: m.now()}
		m.onPick = func(id string) tea.Cmd { return m.openEngine(id, true) }
	}
	m.layout()
}

func (m *model) note(s string)      { m.tr.add(&block{kind: blockNotice, text: s}) }
func (m *model) errorLine(s string) { m.tr.add(&block{kind: blockError, text: s}) }

func itoa(n int) string { return fmt.Sprint(n) }

// addUsage adds one model call to the session's totals and, when the
// model has a price, to its cost; one unpriced call makes the cost
// unknown (tokens only are shown).
func (m *model) addUsage(u llm.Usage) {
	m.totalIn += u.InputTokens
	m.totalOut += u.OutputTokens
	if m.opts.Price == nil {
		m.costKnown = false
		return
	}
	in, out, ok := m.opts.Price(m.opts.ModelLabel)
	if !ok {
		m.costKnown = false
		return
	}
	m.cost += (float64(u.InputTokens)*in + float64(u.OutputTokens)*out) / 1e6
}
