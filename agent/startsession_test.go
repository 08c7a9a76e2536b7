package agent_test

import (
	"context"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
)

// StartSession creates the session before any prompt, in the engine's mode
// and titled as asked, claims it, and the first run continues it rather
// than making another.
func TestStartSessionBeforeFirstRun(t *testing.T) {
	h := newHarness(t, scripted.Turn{Text: "hello"})
	var claimed []string
	e := h.engine(agent.WithMode(planning.ModePlan), agent.WithSessionClaim(func(_ context.Context, id string) error {
		claimed = append(claimed, id)
		return nil
	}))
	id, err := e.StartSession(context.Background(), "Review the parser\nsecond line")
	if err != nil || id == "" || e.SessionID() != id {
		t.Fatalf("StartSession = %q, %v (engine has %q)", id, err, e.SessionID())
	}
	s, err := h.open().Get(context.Background(), id)
	if err != nil || s.Title != "Review the parser" || s.Mode != planning.ModePlan {
		t.Fatalf("stored session %+v, %v", s, err)
	}
	if len(claimed) != 1 || claimed[0] != id {
		t.Fatalf("claims %v", claimed)
	}
	again, err := e.StartSession(context.Background(), "other")
	if err != nil || again != id {
		t.Fatalf("second StartSession = %q, %v", again, err)
	}
	drain(t, e.Run(context.Background(), "hi"))
	if e.SessionID() != id {
		t.Fatalf("the run made session %s", e.SessionID())
	}
	if msgs := h.messages(id); len(msgs) != 2 {
		t.Fatalf("%d messages in the started session", len(msgs))
	}
}

// A session started without a title takes its first prompt's (an editor
// opens a session before the user types); a named one keeps its name.
func TestStartSessionWithoutTitleTakesTheFirstPrompts(t *testing.T) {
	h := newHarness(t, scripted.Turn{Text: "a"}, scripted.Turn{Text: "b"})
	e := h.engine()
	id, err := e.StartSession(context.Background(), "  ")
	if err != nil {
		t.Fatal(err)
	}
	title := func() string {
		t.Helper()
		s, err := h.open().Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return s.Title
	}
	if got := title(); got != "" {
		t.Fatalf("title before any prompt %q", got)
	}
	drain(t, e.Run(context.Background(), "\nFix the parser\nmore"))
	drain(t, e.Run(context.Background(), "second prompt"))
	if got := title(); got != "Fix the parser" {
		t.Fatalf("title %q, want the first prompt's first line", got)
	}
}
