package durable_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/durable"
	"github.com/harness9/harness9/internal/lib/temporaltest"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/sqlite"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// BenchmarkSessionsThroughput drives 50 sessions at once through one
// worker on the Temporal dev server, as `serve --engine temporal` does:
// each session planned, followed until its plan awaits review, approved
// and followed to the end (five model calls, three tool calls). It
// reports sessions/s and the wait of each session's first workflow task
// (created → the worker took it), with the worker's default pollers and
// with the SDK's fixed two (WithPollers). Run it with -benchtime=1x:
//
//	go test -run '^$' -bench SessionsThroughput -benchtime=1x ./durable
//
// On the 2-core development VM (shared with other work, so the ratios
// count): the default pollers 1.3 sessions/s, each session's first task
// waiting 0.7 s at p50 and 1.2 s at most; the fixed two 0.8 sessions/s,
// the first task waiting 28 s at p50 and 56 s at most.
func BenchmarkSessionsThroughput(b *testing.B) {
	c := temporaltest.Start(b).Client(b)
	const n = 50
	for _, bc := range []struct {
		name string
		opts []durable.WorkerOption
	}{
		{"pollers=default", nil},
		{"pollers=fixed-2", []durable.WorkerOption{durable.WithPollers(2)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var waits []time.Duration
			var elapsed time.Duration
			for i := 0; b.Loop(); i++ {
				queue := fmt.Sprintf("bench-%s-%d", bc.name, i)
				e := newScriptedEngines(b)
				w := durable.NewWorker(c, queue, durable.NewActivities(durable.EnginesFunc(e.engine)), bc.opts...)
				if err := w.Start(); err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				ids := driveSessions(b, c, e, queue, n)
				elapsed += time.Since(start)
				w.Stop()
				waits = append(waits, firstTaskWaits(b, c, ids)...)
			}
			slices.Sort(waits)
			b.ReportMetric(float64(n*b.N)/elapsed.Seconds(), "sessions/s")
			b.ReportMetric(waits[len(waits)/2].Seconds(), "first-task-wait-p50-s")
			b.ReportMetric(waits[len(waits)-1].Seconds(), "first-task-wait-max-s")
		})
	}
}

// scriptedEngines opens engines on a SQLite store, each session in its own
// workdir with its own scripted model (the plan of loadserve's script).
type scriptedEngines struct {
	tb    testing.TB
	store session.Store
	root  string

	mu     sync.Mutex
	models map[string]*scripted.Provider
}

func newScriptedEngines(tb testing.TB) *scriptedEngines {
	st, err := sqlite.Open(filepath.Join(tb.TempDir(), "harness9.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = st.Close() })
	return &scriptedEngines{tb: tb, store: st, root: tb.TempDir(), models: map[string]*scripted.Provider{}}
}

func (e *scriptedEngines) create(tb testing.TB, i int) string {
	dir := filepath.Join(e.root, fmt.Sprintf("s%03d", i))
	if err := os.Mkdir(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	s := &session.Session{Workdir: dir, Model: "test-model", Mode: planning.ModePlan}
	if err := e.store.Create(context.Background(), s); err != nil {
		tb.Fatal(err)
	}
	todo := func(st planning.TodoStatus) map[string]any {
		return map[string]any{"todos": []map[string]any{{"id": "1", "content": "write note.txt", "status": st}}}
	}
	e.mu.Lock()
	e.models[s.ID] = scripted.New(
		scripted.Turn{Text: "Plan ready.", Calls: scripted.Calls(submitPlan("Note", "write note.txt"))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call(planning.TodoWriteName, todo(inProgress)))},
		scripted.Turn{Text: "Writing the note.", Calls: scripted.Calls(write("note.txt", "done\n"))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call(planning.TodoWriteName, todo(completed)))},
		scripted.Turn{Text: "The note is written."})
	e.mu.Unlock()
	return s.ID
}

// engine opens a fresh engine for each step (durable.EnginesFunc).
func (e *scriptedEngines) engine(_ context.Context, id string, _ durable.Settings) (*agent.Engine, error) {
	sess, err := e.store.Get(context.Background(), id)
	if err != nil {
		return nil, err
	}
	ws, err := tool.NewWorkspace(sess.Workdir, tool.WithHome(e.root))
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	model := e.models[id]
	e.mu.Unlock()
	return agent.New(model, agent.WithModel("test-model"), agent.WithWorkspace(ws), agent.WithStore(e.store),
		agent.WithTools(builtin.All(ws)...), agent.WithPlanFiles(e.root), agent.WithSession(id))
}

// driveSessions runs n sessions at once to completion, each followed by a
// Follower as serve follows it, and returns their ids.
func driveSessions(tb testing.TB, c client.Client, e *scriptedEngines, queue string, n int) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		ids[i] = e.create(tb, i)
		wg.Go(func() {
			id := ids[i]
			err := durable.Start(ctx, c, durable.Input{SessionID: id, TaskQueue: queue, Prompt: "write a note", Mode: planning.ModePlan})
			fol := durable.NewFollower(c)
			if err == nil {
				_, err = fol.Follow(ctx, id, true, func(agent.Event) {})
			}
			var at int
			if err == nil {
				at, err = durable.Answer(ctx, c, id, durable.Review{Choice: planning.ReviewApprove})
			}
			var st durable.Status
			if err == nil {
				st, err = durable.NewFollower(c, durable.FromEvent(at), durable.AnsweredAt(at)).Follow(ctx, id, false, func(agent.Event) {})
			}
			if err == nil && st.Result != agent.RunCompleted {
				err = fmt.Errorf("ended %s", st.Result)
			}
			if err != nil {
				tb.Errorf("session %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	return ids
}

// firstTaskWaits returns, for each session's workflow, how long its first
// workflow task waited for the worker.
func firstTaskWaits(tb testing.TB, c client.Client, ids []string) []time.Duration {
	var out []time.Duration
	for _, id := range ids {
		it := c.GetWorkflowHistory(context.Background(), durable.WorkflowID(id), "", false, 0)
		var scheduled time.Time
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				tb.Fatal(err)
			}
			if a := ev.GetWorkflowTaskScheduledEventAttributes(); a != nil && scheduled.IsZero() {
				scheduled = ev.GetEventTime().AsTime()
			}
			if ev.GetWorkflowTaskStartedEventAttributes() != nil {
				out = append(out, ev.GetEventTime().AsTime().Sub(scheduled))
				break
			}
		}
	}
	return out
}
