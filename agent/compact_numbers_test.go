package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
)

// sourceSlice is a tool result of about 1.7 KB that differs per turn, like
// a slice of a source file.
func sourceSlice(n int) string {
	var b strings.Builder
	for line := range 24 {
		fmt.Fprintf(&b, "%5d\tfunc handler%d_%d(w http.ResponseWriter, r *http.Request) error {\n", line+1, n, line)
	}
	return b.String()
}

// TestCompaction200Turns drives a 200-turn scripted session (each turn reads
// a ~1.7 KB slice of a file) through the engine with a 32k-token window and
// logs the tokens before and after every compaction: the numbers for the
// issue's note. Every request after a compaction leads with the summary and
// the active todos, requests stay under the window, and the whole history
// stays in the store. Run with -v to see the numbers.
func TestCompaction200Turns(t *testing.T) {
	const turns, window = 200, 32000
	const active = "## Active Tasks\n[>] port the handlers\n[ ] add the tests"
	readTool := tool.New("read_source", "Reads a slice of a source file.", func(_ context.Context, in struct {
		N int `json:"n"`
	}) (tool.Result, error) {
		return tool.Text(sourceSlice(in.N)), nil
	}, tool.AsReadOnly())

	h := newHarness(t)
	h.extra = []tool.Tool{readTool}
	h.p.Add(scripted.Turn{Calls: scripted.Calls(todoCall(
		todo("1", "port the handlers", planning.TodoInProgress),
		todo("2", "add the tests", planning.TodoPending)))})
	for n := range turns - 2 {
		h.p.Add(scripted.Turn{Text: fmt.Sprintf("Reading handler file %d to port it.", n),
			Calls: scripted.Calls(scripted.Call("read_source", map[string]int{"n": n}))})
	}
	h.p.Add(scripted.Turn{Text: "All handlers read."})

	summariser := scripted.New()
	for i := range turns {
		summariser.Add(scripted.Turn{Text: fmt.Sprintf("**Goal**\nPort the HTTP handlers.\n\n**Progress**\nRead the handler files up to the newest ones (summary %d).\n\n"+
			"**Next Steps**\nKeep reading, then port.\n\n**Key files and decisions**\n- handlers are in internal/server", i+1)})
	}
	eng := h.engine(agent.WithCompactor(compact.New(summariser, "m")), agent.WithContextWindow(window), agent.WithMaxTurns(turns+1))
	evs := drain(t, eng.Run(context.Background(), "port every handler"))
	wantDone(t, evs, agent.RunCompleted)

	comps := ofType[agent.Compacted](evs)
	if len(comps) == 0 {
		t.Fatal("no compaction in 200 turns")
	}
	for i, c := range comps {
		if c.Fallback || c.BeforeTokens <= c.AfterTokens {
			t.Errorf("compaction %d: %+v", i+1, c)
		}
		t.Logf("compaction %d: %d → %d tokens (%s)", i+1, c.BeforeTokens, c.AfterTokens, c.Note)
	}
	if got, want := len(summariser.Requests()), len(summarisedOnes(comps)); got != want || want == 0 {
		t.Errorf("%d summariser calls for %d summarising compactions", got, want)
	}

	reqs := h.p.Requests()
	if len(reqs) != turns {
		t.Fatalf("%d model calls, want %d", len(reqs), turns)
	}
	peak, summarised := 0, 0
	for i, r := range reqs {
		n := compact.EstimateTokens(r.System, r.Messages, r.Tools)
		peak = max(peak, n)
		if n > window {
			t.Errorf("request %d is %d tokens, over the %d-token window", i+1, n, window)
		}
		if strings.HasPrefix(r.Messages[0].Content, compact.SummaryHeader) {
			summarised++
			if !strings.HasSuffix(r.Messages[0].Content, active) {
				t.Fatalf("request %d: the summary does not end with the active todos:\n%s", i+1, r.Messages[0].Content)
			}
		}
	}
	last := reqs[len(reqs)-1]
	stored := h.messages(eng.SessionID())
	if len(stored) != 1+2*(turns-1)+1 {
		t.Errorf("stored %d messages; the full history stays", len(stored))
	}
	full := compact.EstimateTokens(last.System, stored, last.Tools)
	t.Logf("200 turns, %d-token window: %d compactions; %d of %d requests led by a summary; peak request %d tokens; "+
		"last request %d tokens (%d messages) vs %d tokens (%d messages) for the uncompacted history",
		window, len(comps), summarised, len(reqs), peak,
		compact.EstimateTokens(last.System, last.Messages, last.Tools), len(last.Messages), full, len(stored))
}

// summarisedOnes are the compactions that asked the model for a summary.
func summarisedOnes(comps []agent.Compacted) []agent.Compacted {
	var out []agent.Compacted
	for _, c := range comps {
		if c.Summarised {
			out = append(out, c)
		}
	}
	return out
}
