package agent_test

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
)

// A stream cut mid-answer (after text arrived) is made again, like a 5xx
// before the first chunk: the consumer is told to drop the partial text,
// the history holds the whole answer once, and the calls it then makes run
// once.
func TestStreamCutMidAnswerIsRetried(t *testing.T) {
	cut := &llm.ProviderError{Provider: "test", Message: "stream cut", Err: io.ErrUnexpectedEOF}
	h := newHarness(t,
		scripted.Turn{Text: "Writing the fi", Err: cut},
		scripted.Turn{Text: "Writing the file.", Calls: []llm.ToolCall{write("a.txt", "A")}},
		scripted.Turn{Text: "Done."},
	)
	e := h.engine()
	evs := drain(t, e.Run(context.Background(), "write a.txt"))
	wantDone(t, evs, agent.RunCompleted)
	retries := ofType[agent.StreamRetry](evs)
	if len(retries) != 1 || retries[0].Attempt != 1 {
		t.Fatalf("retry events %+v", retries)
	}
	if n := len(resultsOf(evs)); n != 1 {
		t.Errorf("%d tool results, want 1", n)
	}
	var answers []string
	for _, m := range h.messages(e.SessionID()) {
		if m.Role == llm.RoleAssistant {
			answers = append(answers, m.Content)
		}
	}
	if len(answers) != 2 || answers[0] != "Writing the file." {
		t.Errorf("stored answers %q", answers)
	}
}

// A failure that is not a cut stream (a 401) is not retried, and a stream
// cut every time gives up after two retries.
func TestStreamRetryLimits(t *testing.T) {
	denied := &llm.ProviderError{Provider: "test", Status: 401, Message: "bad key", Err: errors.New("HTTP 401")}
	cut := &llm.ProviderError{Provider: "test", Message: "stream cut", Err: io.ErrUnexpectedEOF}
	for name, c := range map[string]struct {
		turns   []scripted.Turn
		retries int
	}{
		"401":     {[]scripted.Turn{{Text: "x", Err: denied}}, 0},
		"cut x 3": {[]scripted.Turn{{Text: "a", Err: cut}, {Text: "b", Err: cut}, {Text: "c", Err: cut}}, 2},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, c.turns...)
			evs := drain(t, h.engine().Run(context.Background(), "go"))
			wantDone(t, evs, agent.RunError)
			if n := len(ofType[agent.StreamRetry](evs)); n != c.retries {
				t.Errorf("%d retries, want %d", n, c.retries)
			}
		})
	}
}
