package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/internal/lib/compacttest"
	"github.com/harness9/harness9/llm/scripted"
)

// TestCompactionSmallWindow is issue 33's test: in an 8,000-token window,
// twenty large reads are carried with at most three summarisation calls
// (before the fix the engine summarised on nearly every turn), every
// request after a compaction keeps the active todos, no request passes the
// window, and the run completes.
func TestCompactionSmallWindow(t *testing.T) {
	h := newHarness(t, compacttest.Turns()...)
	if err := compacttest.WriteFiles(h.dir); err != nil {
		t.Fatal(err)
	}
	summariser := compacttest.Summariser()
	eng := h.engine(agent.WithSystemPrompt(compacttest.System()),
		agent.WithCompactor(compact.New(summariser, "m")), agent.WithContextWindow(compacttest.Window))
	evs := drain(t, eng.Run(context.Background(), compacttest.Prompt))
	wantDone(t, evs, agent.RunCompleted)

	comps := ofType[agent.Compacted](evs)
	calls := len(summariser.Requests())
	for i, c := range comps {
		t.Logf("compaction %d: %d → %d tokens (%s)", i+1, c.BeforeTokens, c.AfterTokens, c.Note)
	}
	reqs := h.p.Requests()
	fixed := compact.EstimateTokens(reqs[0].System, nil, reqs[0].Tools)
	t.Logf("fixed part %d tokens; %d summarisation calls, %d compactions, %d model calls", fixed, calls, len(comps), len(reqs))
	if calls < 1 || calls > 3 {
		t.Errorf("%d summarisation calls; want 1 to 3", calls)
	}
	peak := 0
	for i, r := range reqs {
		n := compact.EstimateTokens(r.System, r.Messages, r.Tools)
		peak = max(peak, n)
		if n > compacttest.Window {
			t.Errorf("request %d is %d tokens, over the %d-token window", i+1, n, compacttest.Window)
		}
		if strings.HasPrefix(r.Messages[0].Content, compact.SummaryHeader) && !strings.HasSuffix(r.Messages[0].Content, compacttest.ActiveTasks) {
			t.Fatalf("request %d: the summary does not end with the active todos:\n%s", i+1, r.Messages[0].Content)
		}
	}
	// Every compaction says why, with the numbers; most only shortened
	// old outputs (no model call).
	for i, c := range comps {
		if c.Reason != "threshold" || c.ThresholdTokens != compacttest.Window*8/10 || c.ContextWindow != compacttest.Window || c.FixedTokens != fixed {
			t.Errorf("compaction %d does not say why: %+v", i+1, c)
		}
		if (!c.Summarised && c.Elided == 0) || c.BeforeTokens <= c.AfterTokens {
			t.Errorf("compaction %d: %+v", i+1, c)
		}
	}
	if got := len(summarisedOnes(comps)); got != calls {
		t.Errorf("%d compactions say they summarised; the summariser was called %d times", got, calls)
	}
	stored := eng.Compaction()
	saved := 0
	for _, c := range comps {
		saved += c.BeforeTokens - c.AfterTokens
	}
	if stored == nil || stored.Count != len(comps) || stored.Summaries != calls || stored.TokensSaved != saved {
		t.Errorf("stored compaction %+v; want %d compactions, %d summaries, %d tokens saved", stored, len(comps), calls, saved)
	}
	t.Logf("peak request %d tokens", peak)
	if len(reqs) != compacttest.Reads+2 {
		t.Errorf("%d model calls, want %d", len(reqs), compacttest.Reads+2)
	}
	if stored := h.messages(eng.SessionID()); len(stored) != 1+2*(compacttest.Reads+1)+1 {
		t.Errorf("stored %d messages; the full history stays", len(stored))
	}
}

// TestFixedPartOverTheWindow: when the system prompt and tool definitions
// alone pass the threshold, the run ends with one clear error before any
// model call, instead of compacting (and calling the summariser) on every
// turn.
func TestFixedPartOverTheWindow(t *testing.T) {
	h := newHarness(t, scripted.Turn{Text: "never played"})
	summariser := scripted.New(scripted.Turn{Text: "never asked"})
	eng := h.engine(agent.WithSystemPrompt(compacttest.System()),
		agent.WithCompactor(compact.New(summariser, "m")), agent.WithContextWindow(4000))
	for range 2 {
		evs := drain(t, eng.Run(context.Background(), "hello"))
		d := wantDone(t, evs, agent.RunError)
		if !errors.Is(d.Err, compact.ErrFixedPartTooLarge) {
			t.Fatalf("Done.Err = %v", d.Err)
		}
		errs := ofType[agent.Error](evs)
		if len(errs) != 1 || !strings.Contains(errs[0].Message, "compaction starts at 3200 (80% of the model's 4000-token context window)") {
			t.Fatalf("errors = %+v; want one that says why", errs)
		}
		if n := len(ofType[agent.Compacted](evs)); n != 0 {
			t.Fatalf("%d compactions", n)
		}
	}
	if n, m := len(h.p.Requests()), len(summariser.Requests()); n != 0 || m != 0 {
		t.Fatalf("%d model calls and %d summariser calls; want none", n, m)
	}
	// The prompts are kept: a larger window carries on.
	h.p = scripted.New(scripted.Turn{Text: "hello again"})
	big := h.engine(agent.WithSession(eng.SessionID()), agent.WithSystemPrompt(compacttest.System()),
		agent.WithCompactor(compact.New(summariser, "m")), agent.WithContextWindow(compacttest.Window))
	wantDone(t, drain(t, big.Run(context.Background(), "and now?")), agent.RunCompleted)
	if msgs := h.p.Requests()[0].Messages; len(msgs) != 3 {
		t.Fatalf("the resumed request carries %d messages; want both earlier prompts and this one", len(msgs))
	}
}
