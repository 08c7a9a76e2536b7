package tui

import (
	"fmt"
	"strings"
	"time"

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
		m.calls[ev.ID] = m.tr.add(&block{kind: blockTool, callID: ev.ID, name: ev.Name, arg: keyArg(ev.Name, ev.Input)})
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
		// The partial answer is void: the model answers again.
		if m.stream != nil {
			m.tr.drop(m.stream)
			m.stream = nil
		}
		m.note(fmt.Sprintf("The model's answer was cut off (%v); asking again in %v (attempt %d).",
			ev.Err, ev.Wait.Round(time.Millisecond), ev.Attempt))
	case *agent.ApprovalRequest:
		return m.askPermission(ev)
	case *agent.InputRequest:
		return m.askInput(ev)
	case agent.Done:
		m.finishText("")
		m.handleDone(ev)
	case agent.Nested:
		m.handleNested(ev)
	}
	return nil
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
		if ev.Err != nil && m.opts.ErrorAdvice != nil {
			if a := m.opts.ErrorAdvice(ev.Err); a != "" {
				m.note("→ " + a)
			}
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
	// The run ended while asking: nobody waits for the answers any more.
	m.denyPermissions("the turn ended")
	m.cancelInputs()
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
		return m.openReview(strings.Join(queued, " "))
	}
	m.layout()
	if len(queued) > 0 {
		return m.send(strings.Join(queued, "\n\n"))
	}
	return nil
}

func (m *model) handleSessions(msg sessionsMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		m.errorLine("Could not list sessions: " + msg.err.Error())
	case len(msg.list) == 0:
		m.note("No earlier sessions in this workdir.")
	default:
		return m.openPicker(&resumePicker{items: msg.list, now: m.now()}, func(m *model, id string) tea.Cmd { return m.openEngine(id, true) })
	}
	m.layout()
	return nil
}

func (m *model) note(s string)      { m.tr.add(&block{kind: blockNotice, text: s}) }
func (m *model) errorLine(s string) { m.tr.add(&block{kind: blockError, text: s}) }

func itoa(n int) string { return fmt.Sprint(n) }

// addUsage adds one model call of the current model to the session's
// totals.
func (m *model) addUsage(u llm.Usage) { m.addUsageOf(m.opts.ModelLabel, u) }

// addUsageOf adds a model's tokens to the session's totals and, when the
// model has a price, to its cost; one unpriced call makes the cost
// unknown (tokens only are shown).
func (m *model) addUsageOf(model string, u llm.Usage) {
	m.totalIn += u.InputTokens
	m.totalOut += u.OutputTokens
	if m.opts.Price == nil {
		m.costKnown = false
		return
	}
	p, ok := m.opts.Price(model)
	if !ok {
		m.costKnown = false
		return
	}
	m.cost += p.Cost(u)
}
