package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
)

// TestAutomaticCompaction: the provider's usage figure (here far above
// our estimate) triggers compaction, in a window the tools' definitions
// (about 2,800 tokens) fit.
func TestAutomaticCompaction(t *testing.T) {
	big := strings.Repeat("lorem ipsum dolor sit amet ", 20)
	turn := func(in int) scripted.Turn {
		return scripted.Turn{Text: big, Calls: scripted.Calls(scripted.Call("list_files", nil)), Usage: llm.Usage{InputTokens: in, OutputTokens: 10}}
	}
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "keep this task in view", planning.TodoInProgress))), Usage: llm.Usage{InputTokens: 1000}},
		turn(2000), turn(3000), turn(9000),
		scripted.Turn{Text: "done after compaction", Usage: llm.Usage{InputTokens: 3000},
			Match: func(r llm.Request) bool { return strings.HasPrefix(r.Messages[0].Content, compact.SummaryHeader) }},
	)
	summariser := scripted.New(scripted.Turn{Text: "Goal: list files.\nProgress: listed them."})
	eng := h.engine(agent.WithCompactor(compact.New(summariser, "m", compact.WithKeepRecent(2))), agent.WithContextWindow(10000))
	evs := drain(t, eng.Run(context.Background(), "list files a lot"))
	wantDone(t, evs, agent.RunCompleted)

	comp := ofType[agent.Compacted](evs)
	if len(comp) != 1 || comp[0].BeforeTokens <= comp[0].AfterTokens {
		t.Fatalf("Compacted = %+v", comp)
	}
	if u := ofType[agent.UsageUpdate](evs); u[len(u)-1].ContextWindow != 10000 {
		t.Errorf("usage window = %d", u[len(u)-1].ContextWindow)
	}
	c := eng.Compaction()
	if c == nil || c.Covered <= 0 || !strings.Contains(c.Summary, "keep this task in view") {
		t.Fatalf("stored compaction = %+v (the summary must carry the active todos)", c)
	}
	// The full history stays in the store; requests start with the summary.
	msgs := h.messages(eng.SessionID())
	if len(msgs) != 10 {
		t.Errorf("stored %d messages, want all 10", len(msgs))
	}
	last := h.p.Requests()[4]
	if len(last.Messages) != len(msgs)-1-c.Covered+1 {
		t.Errorf("last request has %d messages; covered %d of %d", len(last.Messages), c.Covered, len(msgs)-1)
	}

	// A resumed engine builds its requests from the stored summary too, and
	// its Active Tasks block follows the todo list as it is now, not as it
	// was when the summary was made.
	h.p.Add(
		scripted.Turn{Match: func(r llm.Request) bool {
			return strings.HasPrefix(r.Messages[0].Content, compact.SummaryHeader)
		}, Calls: scripted.Calls(scripted.Call("list_files", nil))},
		scripted.Turn{Calls: scripted.Calls(todoCall(
			todo("1", "keep this task in view", planning.TodoCompleted),
			todo("2", "a task added after the summary", planning.TodoPending)))},
		scripted.Turn{Text: "still summarised", Match: func(r llm.Request) bool {
			s := r.Messages[0].Content
			return strings.HasPrefix(s, compact.SummaryHeader) &&
				strings.HasSuffix(s, "## Active Tasks\n[ ] a task added after the summary")
		}},
	)
	again := h.engine(agent.WithSession(eng.SessionID()), agent.WithContextWindow(100000))
	wantDone(t, drain(t, again.Run(context.Background(), "and now?")), agent.RunCompleted)
}

func TestManualCompact(t *testing.T) {
	h := newHarness(t)
	for range 6 {
		h.p.Add(scripted.Turn{Text: "step", Calls: scripted.Calls(scripted.Call("list_files", nil))})
	}
	h.p.Add(scripted.Turn{Text: "done"})
	summariser := scripted.New(scripted.Turn{Text: "Goal: steps."})
	eng := h.engine(agent.WithCompactor(compact.New(summariser, "m", compact.WithKeepRecent(2))))

	if evs := drain(t, eng.Compact(context.Background())); doneOf(evs).Status != agent.RunError {
		t.Errorf("compacting an empty session ended %s", doneOf(evs).Status)
	}
	wantDone(t, drain(t, eng.Run(context.Background(), "go")), agent.RunCompleted)
	evs := drain(t, eng.Compact(context.Background()))
	wantDone(t, evs, agent.RunCompleted)
	if len(ofType[agent.Compacted](evs)) != 1 || eng.Compaction() == nil {
		t.Fatalf("no compaction: %s", dump(evs))
	}

	bare := h.engine()
	wantDone(t, drain(t, bare.Run(context.Background(), "hi")), agent.RunError) // script exhausted
	d := doneOf(drain(t, bare.Compact(context.Background())))
	if !errors.Is(d.Err, agent.ErrNoCompactor) {
		t.Errorf("Compact without a compactor: %v", d.Err)
	}
}
