package agent_test

import (
	"context"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/sqlite"
)

// fullLoads counts the loads of a whole history.
type fullLoads struct {
	session.Store
	n int
}

func (s *fullLoads) Messages(ctx context.Context, id string) ([]llm.Message, error) {
	s.n++
	return s.Store.Messages(ctx, id)
}

// A compacted session resumes with only the uncovered messages loaded; the
// model sees the summary and those, and History still gives the whole
// conversation, read from the store on demand.
func TestResumeCompactedLoadsOnlyTheUncoveredMessages(t *testing.T) {
	const n = 30
	workdir := t.TempDir()
	path, id := seedSession(t, workdir, 1, n, true)
	st, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	want, err := st.Messages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	p := &firstRequest{}
	counted := &fullLoads{Store: st}
	eng, err := agent.New(p, agent.WithStore(counted), agent.WithSession(id), agent.WithModel("m"),
		agent.WithWorkdir(workdir), agent.WithPlanFiles(t.TempDir()), agent.WithCompactor(compact.New(p, "m")))
	if err != nil {
		t.Fatal(err)
	}
	for ev := range eng.Run(context.Background(), "carry on") {
		if d, ok := ev.(agent.Done); ok && d.Status != agent.RunCompleted {
			t.Fatalf("run ended %s", d.Status)
		}
	}
	if p.msgs != 1+11+1 {
		t.Errorf("first request has %d messages, want the summary, the 11 uncovered ones and the prompt", p.msgs)
	}
	if counted.n != 0 {
		t.Errorf("the whole history was loaded %d times before anyone asked for it", counted.n)
	}
	got := eng.History()
	if len(got) != n+2 { // + the prompt and the reply
		t.Fatalf("History has %d messages, want %d", len(got), n+2)
	}
	for i, m := range want {
		if got[i].Role != m.Role || got[i].Content != m.Content || len(got[i].ToolCalls) != len(m.ToolCalls) {
			t.Fatalf("History[%d] = %+v, want %+v", i, got[i], m)
		}
	}
}
