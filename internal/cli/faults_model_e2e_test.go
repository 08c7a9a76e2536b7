package cli_test

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/internal/fakemodel"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
)

// faultyModel serves the stand-in model (internal/fakemodel) on the real
// OpenAI wire through a Faulty wrapper and points the harness at it; the
// model to pass is "openai/stand-in".
func faultyModel(t *testing.T, h *harness) *fakemodel.Faulty {
	t.Helper()
	f := fakemodel.NewFaulty(fakemodel.New())
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	h.env = append(h.env, "OPENAI_BASE_URL="+srv.URL+"/v1", "OPENAI_API_KEY=sk-test")
	return f
}

// noHalfTurns checks that no answer of the stand-in was stored cut short:
// its answers that open with these words always carry tool calls, so one
// stored without them is the text of a stream that broke off.
func noHalfTurns(t *testing.T, msgs []llm.Message) {
	t.Helper()
	for i, m := range msgs {
		if m.Role != llm.RoleAssistant || len(m.ToolCalls) > 0 {
			continue
		}
		for _, p := range []string{"Here is my plan", "Working on step", "Step "} {
			if strings.HasPrefix(m.Content, p) {
				t.Errorf("message %d is half a turn: %q stored without its tool calls", i, m.Content)
			}
		}
	}
}

// planDone checks a stand-in plan run to its end: its step's file written,
// every todo completed, every call answered once, no half turn.
func planDone(t *testing.T, s storedSession, workdir string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(workdir, fakemodel.StepFile(1))); err != nil {
		t.Errorf("the plan's file is missing: %v", err)
	}
	done, _, total := planning.Progress(s.Todos)
	if total == 0 || done != total {
		t.Errorf("todos %v", s.Todos)
	}
	if !wellFormed(s.Messages) {
		t.Error("the stored history is not in the shape a provider accepts")
	}
	noHalfTurns(t, s.Messages)
}

// A provider that fails a few calls — 503, 429 with Retry-After, a reset
// before the answer, a reset in the middle of its stream — costs a retry
// each (with backoff) and nothing else: the plan completes and no half turn
// is stored.
func TestModelFaultsAreRetried(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind fakemodel.Fault
	}{{"503", fakemodel.Unavailable}, {"429 Retry-After", fakemodel.RateLimited},
		{"reset before the answer", fakemodel.ResetBefore}, {"reset mid-stream", fakemodel.ResetMidStream}} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			f := faultyModel(t, h)
			f.Fail(2, tc.kind)
			r := h.run("", "run", "--json", "--plan", "--approve", "auto", "-C", h.workdir, "-m", "openai/stand-in", "add a health check")
			if r.code != 0 || r.last()["status"] != "completed" {
				t.Fatalf("exit %d, last %v\n%s", r.code, r.last(), r.stderr)
			}
			if f.Failed() != 2 {
				t.Fatalf("%d calls failed, want 2", f.Failed())
			}
			planDone(t, h.stored(r.find("session")[0]["session_id"].(string)), h.workdir)
		})
	}
}

// A provider that keeps failing (every way in turn, for as long as it
// takes) during an execution: the run retries within its budget, then
// stops with an error naming the provider and what it answered, exit 1;
// nothing half stored. Once the provider is back, continuing finishes the
// plan.
func TestModelDownStopsClearlyThenContinues(t *testing.T) {
	h := newHarness(t)
	f := faultyModel(t, h)
	p := h.start("run", "--json", "--plan", "--approve", "auto", "-C", h.workdir, "-m", "openai/stand-in", "add a health check")
	id := p.waitFor("session")["session_id"].(string)
	p.waitFor("approved")
	f.Fail(-1, fakemodel.ResetMidStream, fakemodel.Unavailable, fakemodel.RateLimited, fakemodel.ResetBefore)
	code := p.wait()
	last := p.events[len(p.events)-1]
	if code != 1 || last["status"] != "error" {
		t.Fatalf("exit %d, last event %v; want 1 and done error\n%s", code, last, p.stderr.String())
	}
	var msg string
	for _, ev := range p.events {
		if ev["type"] == "error" {
			msg = fmt.Sprint(ev["message"])
		}
	}
	if !strings.Contains(msg, "openai") || !strings.Contains(msg, "attempts") {
		t.Errorf("the error %q does not name the provider and the attempts", msg)
	}
	if f.Failed() < 4 {
		t.Errorf("only %d calls were tried before giving up", f.Failed())
	}
	s := h.stored(id)
	if !wellFormed(s.Messages) {
		t.Error("after the stop, the stored history is not in the shape a provider accepts")
	}
	noHalfTurns(t, s.Messages)
	checkTodosAndEvidence(t, s)

	f.Heal()
	r := h.run("", "run", "--json", "--resume", id, "--approve", "auto", "-C", h.workdir, "-m", "openai/stand-in")
	if r.code != 0 || r.last()["status"] != "completed" {
		t.Fatalf("continue: exit %d, %v\n%s", r.code, r.last(), r.stderr)
	}
	planDone(t, h.stored(id), h.workdir)
}

// On the Temporal engine, answers that keep breaking off mid-stream (more
// than one step's own retries absorb) fail the model-call step, which
// Temporal retries with its backoff: the plan completes, and no half answer
// is stored (a hosted step never stores one).
func TestTemporalModelFaultsAreRetried(t *testing.T) {
	h := newDurableHarness(t)
	f := faultyModel(t, h.harness)
	h.worker()
	// Four breaks exhaust a step's attempts (one and three retries, the
	// [retry] defaults); the fifth is absorbed by the retried step.
	f.Fail(5, fakemodel.ResetMidStream)
	r := h.run("", "run", "--json", "--engine", "temporal", "--plan", "--approve", "auto", "-C", h.workdir, "-m", "openai/stand-in", "add a health check")
	if r.code != 0 || r.last()["status"] != "completed" {
		t.Fatalf("exit %d, last %v\n%s", r.code, r.last(), r.stderr)
	}
	if f.Failed() != 5 {
		t.Fatalf("%d calls failed, want 5", f.Failed())
	}
	planDone(t, h.stored(r.find("session")[0]["session_id"].(string)), h.workdir)
}
