package service_test

import (
	"context"
	"iter"
	"testing"
	"time"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/service"
)

// tailRunner's runs go on for a second after their done event, as a run
// does while it saves its state or a durable workflow while it closes.
type tailRunner struct{ service.Runner }

func (r tailRunner) Create(ctx context.Context, workdir string, mode planning.Mode, title string) (service.Session, error) {
	s, err := r.Runner.Create(ctx, workdir, mode, title)
	if err != nil {
		return nil, err
	}
	return tailSession{s}, nil
}

func (r tailRunner) Open(ctx context.Context, id string) (service.Session, error) {
	s, err := r.Runner.Open(ctx, id)
	if err != nil {
		return nil, err
	}
	return tailSession{s}, nil
}

type tailSession struct{ service.Session }

func (s tailSession) Run(ctx context.Context, mode planning.Mode, prompt string) iter.Seq[agent.Event] {
	events := s.Session.Run(ctx, mode, prompt)
	return func(yield func(agent.Event) bool) {
		for ev := range events {
			if !yield(ev) {
				return
			}
		}
		time.Sleep(time.Second)
	}
}

// A client that approves the moment it reads done awaiting_approval (as
// the busy answer tells it to wait for) is not refused as busy while the
// run finishes behind its done event: done goes out once the session is
// free. (A load run of 3,000 sessions found one approval refused with 409.)
func TestDoneMeansTheSessionIsFree(t *testing.T) {
	e := newEnv(t, planScript)
	e.stop()
	e.wrap = func(r service.Runner) service.Runner { return tailRunner{r} }
	e.start()
	id := e.create(e.tokA, map[string]any{"workdir": e.rootA, "mode": "plan", "prompt": "write two files"})
	s := e.subscribe(id, e.tokA, "")
	s.until("done", map[string]any{"status": "awaiting_approval"})
	if r := e.do("POST", "/api/sessions/"+id+"/review", e.tokA, map[string]any{"choice": "approve_auto"}); r.code != 200 {
		t.Fatalf("approving right after done: %d %s", r.code, r.raw)
	}
	// The state event still follows done.
	s.until("state", map[string]any{"running": false})
	s.until("done", map[string]any{"status": "completed"})
}
