package agent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/session"
)

// acceptable is what a strict provider (OpenAI's Chat Completions) checks:
// every assistant tool call is answered right after its message, once, and
// no tool message stands anywhere else.
func acceptable(r llm.Request) bool {
	msgs := r.Messages
	for i := 0; i < len(msgs); {
		m := msgs[i]
		i++
		if m.Role == llm.RoleTool {
			return false
		}
		want := map[string]bool{}
		for _, c := range m.ToolCalls {
			want[c.ID] = true
		}
		for range m.ToolCalls {
			if i >= len(msgs) || msgs[i].Role != llm.RoleTool || !want[msgs[i].ToolCallID] {
				return false
			}
			delete(want, msgs[i].ToolCallID)
			i++
		}
	}
	return true
}

// A session two processes wrote at once (user A, user B, call, call,
// result, result) is sent in a shape the provider accepts, and the calls a
// kill left unanswered get a stored "interrupted" answer.
func TestResumeRepairsAnInterleavedHistory(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	s := &session.Session{Workdir: h.dir, Model: "scripted/test", Title: "two writers"}
	if err := h.store.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	tc := func(id string) llm.ToolCall { return llm.ToolCall{ID: id, Name: "list_files", Input: []byte(`{}`)} }
	for _, m := range []llm.Message{
		{Role: llm.RoleUser, Content: "A"},
		{Role: llm.RoleUser, Content: "B"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{tc("a1")}},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{tc("b1"), tc("b2")}},
		{Role: llm.RoleTool, ToolCallID: "b1", Name: "list_files", Content: "b1 out"},
		{Role: llm.RoleTool, ToolCallID: "a1", Name: "list_files", Content: "a1 out"},
		// b2 never answered: its process was killed.
	} {
		if err := h.store.AppendMessage(ctx, s.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	h.p.Add(scripted.Turn{Text: "fine", Match: acceptable})
	eng := h.engine(agent.WithSession(s.ID))
	wantDone(t, drain(t, eng.Run(ctx, "go on")), agent.RunCompleted)

	msgs := h.messages(s.ID)
	answers := map[string]int{}
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			answers[m.ToolCallID]++
		}
	}
	if answers["a1"] != 1 || answers["b1"] != 1 || answers["b2"] != 1 {
		t.Fatalf("stored answers = %v, want one each for a1, b1, b2", answers)
	}
}

// A session claim that fails stops New before anything is read or written.
func TestSessionClaimRefusesABusySession(t *testing.T) {
	h := newHarness(t, scripted.Turn{Text: "one"})
	eng := h.engine()
	wantDone(t, drain(t, eng.Run(context.Background(), "hi")), agent.RunCompleted)
	id := eng.SessionID()
	before := len(h.messages(id))
	busy := &session.BusyError{SessionID: id, PID: 42}
	_, err := agent.New(h.p, agent.WithStore(h.store), agent.WithWorkdir(h.dir), agent.WithSession(id),
		agent.WithSessionClaim(func(_ context.Context, got string) error {
			if got != id {
				t.Errorf("claim of %q, want %q", got, id)
			}
			return busy
		}))
	if !errors.Is(err, session.ErrBusy) {
		t.Fatalf("New = %v, want the busy error", err)
	}
	if after := len(h.messages(id)); after != before {
		t.Fatalf("messages %d → %d on a refused resume", before, after)
	}
	// A new session is claimed right after it is created.
	var claimed []string
	fresh := h.engine(agent.WithSessionClaim(func(_ context.Context, id string) error {
		claimed = append(claimed, id)
		return nil
	}))
	h.p.Add(scripted.Turn{Text: "two"})
	wantDone(t, drain(t, fresh.Run(context.Background(), "new")), agent.RunCompleted)
	if len(claimed) != 1 || claimed[0] != fresh.SessionID() {
		t.Fatalf("claimed %v, want [%s]", claimed, fresh.SessionID())
	}
}
