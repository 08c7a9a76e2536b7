package durable_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/durable"
	"github.com/harness9/harness9/internal/compacttest"
	"github.com/harness9/harness9/internal/temporaltest"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/sqlite"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// compactEngines opens the engines of issue 33's session: its system
// prompt, window and compactor, on a SQLite store. The durable engine gets
// a fresh engine per step, as on a real worker.
type compactEngines struct {
	store      session.Store
	model      llm.Provider
	summariser llm.Provider
}

func (e *compactEngines) Engine(ctx context.Context, id string) (*agent.Engine, error) {
	s, err := e.store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	ws, err := tool.NewWorkspace(s.Workdir)
	if err != nil {
		return nil, err
	}
	return agent.New(e.model, agent.WithWorkspace(ws), agent.WithStore(e.store), agent.WithTools(builtin.All(ws)...),
		agent.WithSession(id), agent.WithSystemPrompt(compacttest.System()), agent.WithContextWindow(compacttest.Window),
		agent.WithCompactor(compact.New(e.summariser, "m")))
}

// compactRun is what one engine did with the session.
type compactRun struct {
	compacted []agent.Compacted
	summaries int
	last      string // the last text
	stored    *session.Compaction
}

func newCompactSession(t *testing.T, store session.Store) string {
	t.Helper()
	dir := t.TempDir()
	if err := compacttest.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	s := &session.Session{Workdir: dir, Title: "compaction"}
	if err := store.Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return s.ID
}

// TestCompactionSameOnTemporal runs issue 33's session on the local engine
// and on the Temporal engine (a dev server, a worker, fresh engines per
// step): both ask for the same few summaries and report the same
// compacted events, and store the same compaction.
func TestCompactionSameOnTemporal(t *testing.T) {
	srv := temporaltest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "harness9.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })

	// The local engine.
	local := &compactEngines{store: store, model: scripted.New(compacttest.Turns()...), summariser: compacttest.Summariser()}
	id := newCompactSession(t, store)
	eng, err := local.Engine(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var l compactRun
	for ev := range eng.Run(ctx, compacttest.Prompt) {
		switch ev := ev.(type) {
		case agent.Compacted:
			l.compacted = append(l.compacted, ev)
		case agent.Text:
			l.last = ev.Text
		case agent.Done:
			if ev.Status != agent.RunCompleted {
				t.Fatalf("local run: %s (%v)", ev.Status, ev.Err)
			}
		}
	}
	l.summaries = len(local.summariser.(*scripted.Provider).Requests())
	l.stored = eng.Compaction()

	// The Temporal engine.
	// The worker's log stays out of the test's output.
	tc, err := client.Dial(client.Options{HostPort: srv.Address, Logger: tlog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tc.Close)
	remote := &compactEngines{store: store, model: scripted.New(compacttest.Turns()...), summariser: compacttest.Summariser()}
	queue := "test-compaction"
	w := durable.NewWorker(tc, queue, durable.NewActivities(remote))
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	rid := newCompactSession(t, store)
	if err := durable.Start(ctx, tc, durable.Input{SessionID: rid, Prompt: compacttest.Prompt, TaskQueue: queue}); err != nil {
		t.Fatal(err)
	}
	var res durable.Result
	if err := tc.GetWorkflow(ctx, durable.WorkflowID(rid), "").Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != agent.RunCompleted || res.From != 0 {
		t.Fatalf("workflow: %s (%s), events from %d", res.Status, res.Error, res.From)
	}
	var r compactRun
	for _, env := range res.Events {
		ev, err := env.Decode()
		if err != nil {
			t.Fatal(err)
		}
		switch ev := ev.(type) {
		case agent.Compacted:
			r.compacted = append(r.compacted, ev)
		case agent.Text:
			r.last = ev.Text
		}
	}
	r.summaries = len(remote.summariser.(*scripted.Provider).Requests())
	st, err := store.LoadState(ctx, rid)
	if err != nil {
		t.Fatal(err)
	}
	r.stored = st.Compaction

	t.Logf("local: %d summaries, %d compactions; Temporal: %d summaries, %d compactions",
		l.summaries, len(l.compacted), r.summaries, len(r.compacted))
	if l.summaries < 1 || l.summaries > 3 || r.summaries != l.summaries {
		t.Errorf("summarisation calls: local %d, Temporal %d; want the same, 1 to 3", l.summaries, r.summaries)
	}
	if !reflect.DeepEqual(r.compacted, l.compacted) {
		t.Errorf("compacted events differ:\nlocal    %+v\nTemporal %+v", l.compacted, r.compacted)
	}
	if l.last != compacttest.LastText || r.last != l.last {
		t.Errorf("last answers: local %q, Temporal %q", l.last, r.last)
	}
	if l.stored == nil || r.stored == nil || !strings.HasSuffix(r.stored.Summary, compacttest.ActiveTasks) ||
		!reflect.DeepEqual(*r.stored, *l.stored) {
		t.Errorf("stored compactions differ or lack the active todos:\nlocal    %+v\nTemporal %+v", l.stored, r.stored)
	}
}
