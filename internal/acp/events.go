package acp

import (
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/planning"
)

// event shows one engine event to the client.
func (t *turn) event(ev agent.Event) {
	// The call a submitted plan came from is the result just before it
	// (and the todo list it wrote); a plan the engine submitted on the
	// model's behalf follows something else.
	submitter := t.lastResult
	if _, todos := ev.(agent.Todos); !todos {
		t.lastResult = ""
	}
	switch ev := ev.(type) {
	case agent.SessionStarted:
		t.ss.syncModeTo(ev.Mode)
	case agent.TextDelta:
		t.streamed = true
		t.message(ev.Text)
	case agent.ReasoningDelta:
		t.thought(ev.Text)
	case agent.Text:
		if !t.streamed {
			t.message(ev.Text)
		}
		t.streamed = false
	case agent.ModelRetry:
		// The protocol cannot take back text sent: a partial answer stays
		// in the editor, so it is marked void before the new one follows
		// (the session keeps only the new one).
		note := fmt.Sprintf("The model's answer was cut off (%v); asking again (attempt %d).", ev.Err, ev.Attempt)
		if t.streamed {
			t.message("\n\n*(" + note + " The text above is void.)*\n\n")
		} else {
			t.thought(note)
		}
		t.streamed = false
	case agent.ToolCall:
		t.toolCall(ev.ID, ev.Name, ev.Input)
	case *agent.ApprovalRequest:
		t.askPermission(ev)
	case agent.ToolOutput:
		t.toolOutput(ev.ID, ev.Text)
	case agent.ToolResult:
		t.toolResult(ev)
		t.lastResult = ev.ID
	case agent.Nested:
		t.nested(ev)
	case agent.Todos:
		t.ss.sendPlan(ev.Items)
	case agent.PlanSubmitted:
		t.planFresh, t.planCall = true, submitter
		t.showPlan(ev.Plan)
		t.ss.mu.Lock()
		t.ss.planCall = t.planCall
		t.ss.mu.Unlock()
	case agent.Approved:
		note := "Plan approved; executing it."
		if ev.TaskDir != "" {
			note = fmt.Sprintf("Plan approved; executing it (PLAN.md and TODO.md in %s).", ev.TaskDir)
		}
		t.thought(note)
	case agent.ExecRound:
		t.thought(fmt.Sprintf("Execution round %d: %d of %d steps done.", ev.Round, ev.Done, ev.Total))
	case agent.Compacted:
		t.thought(fmt.Sprintf("History compacted: about %d → %d tokens.", ev.BeforeTokens, ev.AfterTokens))
	case agent.UsageUpdate:
		if ev.ContextWindow > 0 {
			t.ss.update(sdk.SessionUpdate{UsageUpdate: &sdk.SessionUsageUpdate{Used: ev.ContextTokens, Size: ev.ContextWindow}})
		}
	case agent.HookReport:
		if ev.Blocked {
			t.thought(fmt.Sprintf("The %s hook %s blocked this: %s", ev.Event, ev.Hook, ev.Message))
		}
	}
}

// nested shows a sub-agent's tool calls inside the turn, under ids that
// cannot clash with the parent's; its text and todos are the sub-agent's
// own and reach the parent as the task call's result.
func (t *turn) nested(n agent.Nested) {
	prefix := n.Parent + "/"
	switch ev := n.Event.(type) {
	case agent.ToolCall:
		t.toolCall(prefix+ev.ID, ev.Name, ev.Input)
	case agent.ToolOutput:
		t.toolOutput(prefix+ev.ID, ev.Text)
	case agent.ToolResult:
		ev.ID = prefix + ev.ID
		t.toolResult(ev)
	}
}

// sendPlan sends the todo list as the session's plan (a full replace).
func (ss *sess) sendPlan(items []planning.TodoItem) {
	ss.update(sdk.UpdatePlan(planEntries(items)...))
}

// planEntries are todos as plan entries. The protocol has no cancelled
// state: a cancelled step is shown as finished and says so.
func planEntries(items []planning.TodoItem) []sdk.PlanEntry {
	out := make([]sdk.PlanEntry, 0, len(items))
	for _, it := range items {
		e := sdk.PlanEntry{Content: it.Content, Priority: sdk.PlanEntryPriorityMedium, Status: sdk.PlanEntryStatusPending}
		switch it.Status {
		case planning.TodoInProgress:
			e.Status = sdk.PlanEntryStatusInProgress
		case planning.TodoCompleted:
			e.Status = sdk.PlanEntryStatusCompleted
		case planning.TodoCancelled:
			e.Status, e.Content = sdk.PlanEntryStatusCompleted, it.Content+" (cancelled)"
		}
		out = append(out, e)
	}
	return out
}

// syncModeTo tells the client the mode a run started in, when it is not
// the one it was last told.
func (ss *sess) syncModeTo(m planning.Mode) {
	ss.mu.Lock()
	changed := m != ss.mode
	ss.mode = m
	ss.mu.Unlock()
	if changed {
		ss.update(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: modeID(m)}})
	}
}
