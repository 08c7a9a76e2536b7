package agent_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
)

// broke is a stream that breaks off after part of the answer arrived, the
// way a dropped connection does: a provider cannot retry it.
func broke(text string) scripted.Turn {
	return scripted.Turn{Text: text, Err: &llm.ProviderError{Provider: "p", Message: "the connection dropped mid-stream", Err: io.ErrUnexpectedEOF}}
}

// noWait records the waits instead of sleeping.
func noWait(waits *[]time.Duration) func(context.Context, time.Duration) error {
	return func(_ context.Context, d time.Duration) error { *waits = append(*waits, d); return nil }
}

// With WithModelRetry, an answer whose stream broke off is asked again
// (after a backoff, announced by a ModelRetry event) and only the whole
// answer is stored.
func TestModelRetryAsksABrokenAnswerAgain(t *testing.T) {
	h := newHarness(t, broke("half an"), broke("half an ans"), scripted.Turn{Text: "the whole answer"})
	var waits []time.Duration
	eng := h.engine(agent.WithModelRetry(llm.RetryPolicy{Sleep: noWait(&waits)}))
	evs := drain(t, eng.Run(context.Background(), "please"))
	wantDone(t, evs, agent.RunCompleted)
	retries := ofType[agent.ModelRetry](evs)
	if len(retries) != 2 || retries[0].Attempt != 2 || retries[1].Attempt != 3 || len(waits) != 2 || waits[0] <= 0 {
		t.Fatalf("retries %+v, waits %v", retries, waits)
	}
	msgs := h.messages(eng.SessionID())
	if len(msgs) != 2 || msgs[1].Content != "the whole answer" {
		t.Fatalf("stored %+v", msgs)
	}
}

// The retries stop at the policy's limit: the run fails naming the number
// of attempts, and nothing of the broken answers is stored.
func TestModelRetryGivesUp(t *testing.T) {
	h := newHarness(t, broke("a"), broke("b"), broke("c"))
	var waits []time.Duration
	eng := h.engine(agent.WithModelRetry(llm.RetryPolicy{MaxRetries: 2, Sleep: noWait(&waits)}))
	evs := drain(t, eng.Run(context.Background(), "please"))
	d := wantDone(t, evs, agent.RunError)
	if d.Err == nil || !strings.Contains(d.Err.Error(), "after 3 attempts") {
		t.Fatalf("Done.Err = %v", d.Err)
	}
	if msgs := h.messages(eng.SessionID()); len(msgs) != 1 {
		t.Fatalf("stored %+v", msgs)
	}
}

// With llm.NoRetry a broken answer fails the run at once.
func TestNoModelRetryFailsAtOnce(t *testing.T) {
	h := newHarness(t, broke("half"), scripted.Turn{Text: "never asked"})
	eng := h.engine(agent.WithModelRetry(llm.NoRetry))
	evs := drain(t, eng.Run(context.Background(), "please"))
	wantDone(t, evs, agent.RunError)
	if len(ofType[agent.ModelRetry](evs)) != 0 || h.p.Remaining() != 1 {
		t.Fatalf("the call was retried under llm.NoRetry")
	}
}
