package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness9/harness9/internal/lib/temporaltest"
)

// durableHarness is a harness whose config points at a Temporal dev server
// and a task queue of its own, with workers it starts and stops.
type durableHarness struct {
	*harness
	server *temporaltest.Server
}

func newDurableHarness(t *testing.T) *durableHarness {
	t.Helper()
	srv := temporaltest.Start(t)
	h := newHarness(t)
	h.bin = temporalBinary(t) // the Temporal engine is built only with -tags temporal
	cfg := fmt.Sprintf("[temporal]\naddress = %q\ntask_queue = %q\nheartbeat_timeout = \"4s\"\n", srv.Address, "test-"+filepath.Base(h.home))
	if err := os.WriteFile(filepath.Join(h.home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return &durableHarness{harness: h, server: srv}
}

// worker starts `harness9 worker`; it is killed when the test ends.
func (h *durableHarness) worker() *exec.Cmd {
	h.t.Helper()
	cmd := exec.Command(h.binary(), "worker")
	cmd.Env = h.env
	var logb bytes.Buffer
	cmd.Stderr = &logb
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	h.t.Cleanup(func() {
		stopProcess(cmd.Process, syscall.SIGTERM, done)
		if h.t.Failed() {
			h.t.Logf("worker %d log:\n%s", cmd.Process.Pid, logb.String())
		}
	})
	return cmd
}

// planApproveExecute is the plan → approve → execute scenario both engines
// must pass: a plan run stops awaiting approval without writing; approve
// runs the plan to the end, todos n/n, in the plan's task directory.
func planApproveExecute(t *testing.T, h *harness, engine []string, approve func(id string) result) {
	t.Helper()
	model := h.script(planScript)
	args := append([]string{"run", "--json", "--plan", "--approve", "never", "-C", h.workdir, "-m", model}, engine...)
	r := h.run("", append(args, "write two files")...)
	if r.code != 0 || r.last()["status"] != "awaiting_approval" {
		t.Fatalf("plan run: exit %d, last %v\n%s", r.code, r.last(), r.stderr)
	}
	if plan := r.find("plan"); len(plan) != 1 || plan[0]["title"] != "Two files" {
		t.Fatalf("plan events = %v", plan)
	}
	if _, err := os.Stat(filepath.Join(h.workdir, "a.txt")); err == nil {
		t.Fatal("Plan Mode wrote a file")
	}
	id := r.find("session")[0]["session_id"].(string)

	r = approve(id)
	if r.code != 0 || r.last()["status"] != "completed" {
		t.Fatalf("approve: exit %d, last %v\nstderr: %s\nstdout: %s", r.code, r.last(), r.stderr, r.stdout)
	}
	approved := r.find("approved")
	if len(approved) != 1 || len(r.find("exec_round")) == 0 {
		t.Fatalf("approved events = %v, exec_round events = %v", approved, r.find("exec_round"))
	}
	todo, err := os.ReadFile(filepath.Join(approved[0]["task_dir"].(string), "TODO.md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(todo), "- [x]") != 2 || strings.Contains(string(todo), "- [ ]") {
		t.Fatalf("TODO.md not all checked:\n%s", todo)
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(h.workdir, f)); err != nil {
			t.Fatalf("%s not written: %v", f, err)
		}
	}
	s := h.stored(id)
	done := 0
	for _, it := range s.Todos {
		if it.Status == "completed" {
			done++
		}
	}
	if done != 2 || len(s.Todos) != 2 {
		t.Fatalf("stored todos %v, want 2/2 completed", s.Todos)
	}
}

func TestPlanApproveExecuteOnBothEngines(t *testing.T) {
	t.Run("local", func(t *testing.T) {
		h := newHarness(t)
		planApproveExecute(t, h, nil, func(id string) result {
			return h.run("", "run", "--json", "--resume", id, "--approve", "auto", "-C", h.workdir, "-m", h.script(planScript))
		})
	})
	t.Run("temporal", func(t *testing.T) {
		h := newDurableHarness(t)
		h.worker()
		planApproveExecute(t, h.harness, []string{"--engine", "temporal"}, func(id string) result {
			// The approval is a signal to the workflow waiting for it.
			return h.run("", "sessions", "approve", id, "--json")
		})
	})
}

// markerScript plans two steps; executing them appends a line to
// marker.txt, then runs a slow command, then completes both items.
const markerScript = `{"turns": [
  {"calls": [{"name": "submit_plan", "input": {"title": "Marker", "content": "Append, then wait.", "steps": ["append the marker", "wait"]}}]},
  {"calls": [
    {"name": "bash", "input": {"command": "echo once >> marker.txt"}},
    {"name": "bash", "input": {"command": "touch sleeping; sleep 3; echo slept"}},
    {"name": "todo_write", "input": {"todos": [{"id": "1", "content": "append the marker", "status": "completed"}, {"id": "2", "content": "wait", "status": "in_progress"}]}}]},
  {"calls": [
    {"name": "read_file", "input": {"path": "marker.txt"}},
    {"name": "todo_write", "input": {"todos": [{"id": "1", "content": "append the marker", "status": "completed"}, {"id": "2", "content": "wait", "status": "completed"}]}}]},
  {"text": "Done."}
]}`

// Kill -9 the worker while a tool batch runs (during the slow command,
// after the marker was appended and its result stored) and start another:
// the workflow resumes on the new worker and finishes, and the completed
// call that wrote a file is not run again.
func TestKillWorkerMidExecutionResumesWithoutRepeatingWrites(t *testing.T) {
	h := newDurableHarness(t)
	first := h.worker()
	cmd := exec.Command(h.binary(), "run", "--json", "--engine", "temporal", "--plan", "--approve", "auto",
		"-C", h.workdir, "-m", h.script(markerScript), "append a marker and wait")
	cmd.Env = h.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	sleeping := filepath.Join(h.workdir, "sleeping")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(sleeping); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the slow command never started\nstdout: %s\nstderr: %s", out.String(), errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := first.Process.Kill(); err != nil { // SIGKILL: no clean shutdown
		t.Fatal(err)
	}
	_ = os.Remove(sleeping)
	h.worker()

	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("run: %v\nstdout: %s\nstderr: %s", err, out.String(), errb.String())
		}
	case <-time.After(3 * time.Minute):
		t.Fatalf("the run did not finish after the worker was replaced\nstdout: %s\nstderr: %s", out.String(), errb.String())
	}
	var last map[string]any
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last["status"] != "completed" {
		t.Fatalf("last event %v (%v), want done completed\n%s", last, err, out.String())
	}
	marker, err := os.ReadFile(filepath.Join(h.workdir, "marker.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(marker), "once"); got != 1 {
		t.Fatalf("marker.txt has %d lines, want 1: the completed write ran again\n%s", got, marker)
	}
	if _, err := os.Stat(sleeping); err != nil {
		t.Fatal("the call that was in flight when the worker died did not run again on the new worker")
	}
	// The stored history answers every call once.
	id := ""
	for _, l := range lines {
		var ev map[string]any
		if json.Unmarshal([]byte(l), &ev) == nil && ev["type"] == "session" {
			id = ev["session_id"].(string)
			break
		}
	}
	results := map[string]int{}
	for _, m := range h.stored(id).Messages {
		if m.Role == "tool" {
			results[m.ToolCallID]++
		}
	}
	for callID, n := range results {
		if n != 1 {
			t.Errorf("call %s has %d results, want 1", callID, n)
		}
	}
}
