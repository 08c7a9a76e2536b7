package agent_test

import (
	"context"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
)

// The context size of a session's last model call is saved with it: an
// engine that opens the session again reports it (a front end's gauge).
func TestLastContextSurvivesResume(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Text: "one", Usage: llm.Usage{InputTokens: 1000, OutputTokens: 200}},
		scripted.Turn{Text: "two", Usage: llm.Usage{InputTokens: 1500, OutputTokens: 300}},
	)
	e := h.engine()
	drain(t, e.Run(context.Background(), "first"))
	drain(t, e.Run(context.Background(), "second"))
	if got := e.LastContextTokens(); got != 1800 {
		t.Fatalf("last context %d, want 1800", got)
	}
	again := h.engine(agent.WithSession(e.SessionID()))
	if got := again.LastContextTokens(); got != 1800 {
		t.Fatalf("last context after resume %d, want 1800", got)
	}
}
