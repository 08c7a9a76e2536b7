package agent_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
)

// smallWindow is the scenario of issue 33: an 8,000-token window whose
// fixed part (system prompt and tool definitions) is about half of it, and
// a session that reads twenty files of about 1,500 tokens each.
const (
	smallWindow = 8000
	largeReads  = 20
)

// sourceFile is a file of about 1,500 tokens that differs per n.
func sourceFile(n int) string {
	var b strings.Builder
	for line := range 40 {
		fmt.Fprintf(&b, "func (s *server%d) handle%d(w http.ResponseWriter, r *http.Request) error { return s.serve(w, r, %d) }\n", n, line, line*n)
	}
	return b.String()
}

// paddedSystem is a system prompt that brings the fixed part of a request
// (with the built-in tools' definitions) to about 4,000 tokens, like the
// CLI's system prompt, skills index and tools.
func paddedSystem() string {
	var b strings.Builder
	b.WriteString(agent.DefaultSystemPrompt)
	for i := range 60 {
		fmt.Fprintf(&b, "\nRule %d: keep changes small, run the tests after each edit, and explain what changed.", i+1)
	}
	return b.String()
}

// TestCompactionSmallWindow is issue 33's test: in an 8,000-token window,
// twenty large reads are carried with at most three summarisation calls
// (before the fix the engine summarised on nearly every turn), every
// request after a compaction keeps the active todos, no request passes the
// window, and the run completes.
func TestCompactionSmallWindow(t *testing.T) {
	const active = "## Active Tasks\n[>] port the handlers\n[ ] add the tests"
	h := newHarness(t)
	h.p.Add(scripted.Turn{Calls: scripted.Calls(todoCall(
		todo("1", "port the handlers", planning.TodoInProgress),
		todo("2", "add the tests", planning.TodoPending)))})
	for n := range largeReads {
		name := fmt.Sprintf("server%02d.go", n)
		if err := os.WriteFile(filepath.Join(h.dir, name), []byte(sourceFile(n)), 0o644); err != nil {
			t.Fatal(err)
		}
		h.p.Add(scripted.Turn{Text: "Reading " + name + ".", Calls: scripted.Calls(read(name))})
	}
	h.p.Add(scripted.Turn{Text: "All handlers read."})

	summariser := scripted.New()
	for i := range largeReads {
		summariser.Add(scripted.Turn{Text: fmt.Sprintf("**Goal**\nPort the HTTP handlers.\n\n**Progress**\nRead the server files (summary %d).\n\n"+
			"**Next Steps**\nKeep reading, then port.\n\n**Key files and decisions**\n- handlers are in server*.go", i+1)})
	}
	eng := h.engine(agent.WithSystemPrompt(paddedSystem()),
		agent.WithCompactor(compact.New(summariser, "m")), agent.WithContextWindow(smallWindow))
	evs := drain(t, eng.Run(context.Background(), "port every handler"))
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
		if n > smallWindow {
			t.Errorf("request %d is %d tokens, over the %d-token window", i+1, n, smallWindow)
		}
		if strings.HasPrefix(r.Messages[0].Content, compact.SummaryHeader) && !strings.HasSuffix(r.Messages[0].Content, active) {
			t.Fatalf("request %d: the summary does not end with the active todos:\n%s", i+1, r.Messages[0].Content)
		}
	}
	// Every compaction says why, with the numbers; most only shortened
	// old outputs (no model call).
	for i, c := range comps {
		if c.Reason != "threshold" || c.ThresholdTokens != smallWindow*8/10 || c.ContextWindow != smallWindow || c.FixedTokens != fixed {
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
	if len(reqs) != largeReads+2 {
		t.Errorf("%d model calls, want %d", len(reqs), largeReads+2)
	}
	if stored := h.messages(eng.SessionID()); len(stored) != 1+2*(largeReads+1)+1 {
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
	eng := h.engine(agent.WithSystemPrompt(paddedSystem()),
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
	big := h.engine(agent.WithSession(eng.SessionID()), agent.WithSystemPrompt(paddedSystem()),
		agent.WithCompactor(compact.New(summariser, "m")), agent.WithContextWindow(smallWindow))
	wantDone(t, drain(t, big.Run(context.Background(), "and now?")), agent.RunCompleted)
	if msgs := h.p.Requests()[0].Messages; len(msgs) != 3 {
		t.Fatalf("the resumed request carries %d messages; want both earlier prompts and this one", len(msgs))
	}
}
