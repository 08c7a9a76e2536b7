package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness9/harness9/llm"
)

// drainBound is how long a process may take to stop after SIGTERM while a
// tool runs: the documented grace (30 s) and room for a loaded machine. It
// bounds a shutdown, it does not time one.
const drainBound = 45 * time.Second

// waitInCall polls the store until session id's last message is a call of
// tool with no result yet: the tool is running.
func waitInCall(t *testing.T, h *harness, id, tool string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		s := h.stored(id)
		if n := len(s.Messages); n > 0 {
			last := s.Messages[n-1]
			if last.Role == llm.RoleAssistant && len(last.ToolCalls) > 0 && last.ToolCalls[0].Name == tool {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("session %s never ran %s", id, tool)
}

// checkStopped checks a session stopped part-way: its history is well
// formed (the call cut short has its result) and its todos agree with it.
func checkStopped(t *testing.T, s storedSession) {
	t.Helper()
	if !wellFormed(s.Messages) {
		t.Error("after the stop, the stored history is not in the shape a provider accepts")
	}
	checkTodosAndEvidence(t, s)
}

// SIGTERM to serve while a session executes a plan (a command running):
// serve cancels the run, saves it and exits 0 within the bound; a new serve
// continues the plan to the end and the session is intact.
func TestSIGTERMServeDuringExecution(t *testing.T) {
	h := newHarness(t)
	root := t.TempDir()
	token := serveSetup(t, h, root)
	model := h.script(stepsScript(t, 2, "20"))
	s := h.serve(model)
	ids, dirs, logs := planned(t, s, token, root, 1)
	if code, body := s.post(token, "/api/sessions/"+ids[0]+"/review", `{"choice": "approve_auto"}`); code != 200 {
		t.Fatalf("approve: %d %v", code, body)
	}
	waitInCall(t, h, ids[0], "bash")
	begun := time.Now()
	if code := s.stop(); code != 0 {
		t.Fatalf("serve exited %d after SIGTERM\n%s", code, s.logs)
	}
	if took := time.Since(begun); took > drainBound {
		t.Errorf("serve took %v to stop", took)
	}
	logs[0].wait(t, "done", "cancelled", 1, 10*time.Second)
	checkStopped(t, h.stored(ids[0]))

	s = h.serve(model)
	l := s.follow(token, ids[0])
	if code, body := s.post(token, "/api/sessions/"+ids[0]+"/continue", ""); code != 202 {
		t.Fatalf("continue after the restart: %d %v\n%s", code, body, s.logs)
	}
	l.wait(t, "done", "completed", 1, 3*time.Minute)
	checkIntact(t, h.stored(ids[0]), dirs[0], 2)
}

// SIGTERM to `run` while it executes an approved plan: it stops the
// command, saves the session, prints done cancelled and exits 130 (with a
// note naming the command that continues); that command finishes the plan.
func TestSIGTERMRunDuringExecution(t *testing.T) {
	h := newHarness(t)
	model := h.script(stepsScript(t, 2, "20"))
	p := h.start("run", "--json", "--plan", "--approve", "auto", "-C", h.workdir, "-m", model, "carry out the steps")
	id := p.waitFor("session")["session_id"].(string)
	waitInCall(t, h, id, "bash")
	begun := time.Now()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	code := p.wait()
	if took := time.Since(begun); took > drainBound {
		t.Errorf("run took %v to stop", took)
	}
	if code != 130 || p.events[len(p.events)-1]["status"] != "cancelled" {
		t.Fatalf("after SIGTERM: exit %d, last event %v; want 130 and done cancelled\n%s", code, p.events[len(p.events)-1], p.stderr.String())
	}
	cont := "harness9 run --resume " + id + " --approve auto"
	if !strings.Contains(p.stderr.String(), cont) {
		t.Errorf("stderr does not say how to continue (%q):\n%s", cont, p.stderr.String())
	}
	checkStopped(t, h.stored(id))
	r := h.run("", "run", "--json", "--resume", id, "--approve", "auto", "-C", h.workdir, "-m", model)
	if r.code != 0 || r.last()["status"] != "completed" {
		t.Fatalf("continue: exit %d, %v\n%s", r.code, r.last(), r.stderr)
	}
	checkIntact(t, h.stored(id), h.workdir, 2)
}

// SIGTERM to the TUI while it executes an approved plan: it stops the
// command, saves the session, gives the terminal back and exits within the
// bound; `run --resume --approve auto` finishes the plan.
func TestSIGTERMTUIDuringExecution(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed (apt-get install -y tmux)")
		}
		t.Skip("tmux is not installed (apt-get install -y tmux)")
	}
	h := newHarness(t)
	model := h.script(stepsScript(t, 2, "20"))
	sock := fmt.Sprintf("h9term-%d", os.Getpid())
	tm := func(args ...string) string {
		out, _ := exec.Command(tmux, append([]string{"-L", sock}, args...)...).CombinedOutput()
		return string(out)
	}
	t.Cleanup(func() { tm("kill-server") })
	tm("new-session", "-d", "-s", "h9", "-x", "120", "-y", "40",
		fmt.Sprintf("env HARNESS9_HOME=%q HOME=%q TERM=xterm-256color %q -C %q -m %q; echo EXIT=$?; sleep 60",
			h.home, h.home, binary(t), h.workdir, model))
	waitFor := func(what string) {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for time.Now().Before(deadline) {
			if strings.Contains(tm("capture-pane", "-p", "-t", "h9"), what) {
				return
			}
			time.Sleep(150 * time.Millisecond)
		}
		t.Fatalf("timed out waiting for %q; screen:\n%s", what, tm("capture-pane", "-p", "-t", "h9"))
	}
	waitFor("DEFAULT")
	tm("send-keys", "-t", "h9", "BTab")
	waitFor("PLAN MODE")
	tm("send-keys", "-t", "h9", "-l", "carry out the steps")
	tm("send-keys", "-t", "h9", "Enter")
	waitFor("Plan ready for review")
	// Keys typed within the dialog's guard delay (tui.DefaultDialogDelay,
	// 500 ms) after it appears are not taken as answers.
	time.Sleep(700 * time.Millisecond)
	tm("send-keys", "-t", "h9", "1")
	tm("send-keys", "-t", "h9", "Enter")

	var id string
	deadline := time.Now().Add(time.Minute)
	for id == "" && time.Now().Before(deadline) {
		var list []struct{ ID string }
		if r := h.run("", "sessions", "list", "--all", "--json"); json.Unmarshal([]byte(r.stdout), &list) == nil && len(list) == 1 {
			id = list[0].ID
		}
		time.Sleep(100 * time.Millisecond)
	}
	if id == "" {
		t.Fatal("no session was stored")
	}
	waitInCall(t, h, id, "bash")
	pid := tuiPID(t, tm("list-panes", "-t", "h9", "-F", "#{pane_pid}"))
	begun := time.Now()
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor("EXIT=")
	if took := time.Since(begun); took > drainBound {
		t.Errorf("the TUI took %v to stop", took)
	}
	screen := tm("capture-pane", "-p", "-t", "h9")
	if !strings.Contains(screen, "EXIT=130") && !strings.Contains(screen, "EXIT=0") {
		t.Errorf("the TUI's exit status after SIGTERM:\n%s", screen)
	}
	checkStopped(t, h.stored(id))
	r := h.run("", "run", "--json", "--resume", id, "--approve", "auto", "-C", h.workdir, "-m", model)
	if r.code != 0 || r.last()["status"] != "completed" {
		t.Fatalf("continue: exit %d, %v\n%s", r.code, r.last(), r.stderr)
	}
	checkIntact(t, h.stored(id), h.workdir, 2)
}

// tuiPID is the harness9 process under the pane's shell (pid).
func tuiPID(t *testing.T, panePID string) int {
	t.Helper()
	sh, err := strconv.Atoi(strings.TrimSpace(panePID))
	if err != nil {
		t.Fatalf("pane pid %q", panePID)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", sh, sh))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); strings.HasSuffix(exe, "harness9") {
				return pid
			}
		}
	}
	t.Fatalf("no harness9 under the pane's shell %d (children %q)", sh, b)
	return 0
}

// workerProc is a `harness9 worker` the test stops itself.
type workerProc struct {
	cmd  *exec.Cmd
	done chan struct{}
	log  *strings.Builder
}

func (h *durableHarness) startWorker(args ...string) *workerProc {
	h.t.Helper()
	w := &workerProc{cmd: exec.Command(h.binary(), append([]string{"worker"}, args...)...), done: make(chan struct{}), log: &strings.Builder{}}
	w.cmd.Env = h.env
	w.cmd.Stderr = w.log
	if err := w.cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	go func() { _ = w.cmd.Wait(); close(w.done) }()
	h.t.Cleanup(func() {
		_ = w.cmd.Process.Kill()
		<-w.done
		if h.t.Failed() {
			h.t.Logf("worker %d log:\n%s", w.cmd.Process.Pid, w.log.String())
		}
	})
	return w
}

// SIGTERM to the only worker while a step of an execution runs a command:
// the worker stops taking work, lets the command finish (its drain time,
// 20 s by default, covers it) and exits 0; the step is not run again. A
// second worker, with --drain-timeout 1s, is stopped in a longer command:
// it cancels the step and exits at once; a third worker runs that step
// again and carries the plan to the end. The session is intact.
func TestSIGTERMWorkerDuringExecution(t *testing.T) {
	h := newDurableHarness(t)
	root := t.TempDir()
	token := serveSetup(t, h.harness, root)
	model := h.script(stepsScript(t, 2, "4", "60"))
	w := h.startWorker()
	s := h.serve(model, "--engine", "temporal")
	ids, dirs, logs := planned(t, s, token, root, 1)
	if code, body := s.post(token, "/api/sessions/"+ids[0]+"/review", `{"choice": "approve_auto"}`); code != 200 {
		t.Fatalf("approve: %d %v", code, body)
	}
	stop := func(w *workerProc) {
		t.Helper()
		begun := time.Now()
		_ = w.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-w.done:
		case <-time.After(2 * drainBound):
			t.Fatalf("the worker did not stop\n%s", w.log.String())
		}
		if took := time.Since(begun); took > drainBound {
			t.Errorf("the worker took %v to stop", took)
		}
		if code := w.cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("the worker exited %d after SIGTERM\n%s", code, w.log.String())
		}
	}
	started := func(step int) {
		t.Helper()
		deadline := time.Now().Add(2 * time.Minute)
		for commandRuns(t, dirs[0], step) == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("step %d's command never started\n%s", step, w.log.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	started(1)
	stop(w)
	w = h.startWorker("--drain-timeout", "1s")
	started(2)
	stop(w)
	h.startWorker()
	logs[0].wait(t, "done", "completed", 1, 4*time.Minute)
	logs[0].answered(t)
	checkIntact(t, h.stored(ids[0]), dirs[0], 2)
	if n := commandRuns(t, dirs[0], 1); n != 1 {
		t.Errorf("step 1's command ran %d times; the stopping worker should have finished it, once", n)
	}
	if n := commandRuns(t, dirs[0], 2); n != 2 {
		t.Errorf("step 2's command ran %d times; cancelled on the stopping worker, it runs again on the next", n)
	}
}
