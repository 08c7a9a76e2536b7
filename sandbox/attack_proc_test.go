//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Whatever a command starts ends with it: background jobs, processes that
// start sessions of their own (setsid -f), daemons that double-fork, and
// a flood of them. They are gone when the command has been waited for,
// before Cleanup: the PID namespace's end, or the helper, ended them.
func TestNothingOutlivesTheCall(t *testing.T) {
	eachRegime(t, func(t *testing.T, opts ...Option) {
		w := newWorld(t, opts...)
		marker := fmt.Sprintf("%d", 40000+os.Getpid()%20000)
		for _, p := range []Policy{ReadOnly, WorkspaceWrite} {
			for _, c := range []string{
				"sleep " + marker + " &",
				"setsid sleep " + marker + " &",
				"setsid -f sleep " + marker,
				"nohup sleep " + marker + " >/dev/null 2>&1 &",
				"( (sleep " + marker + " &) & )",
				"setsid sh -c 'setsid sleep " + marker + " &' &",
				"for i in $(seq 40); do setsid -f sh -c 'sleep " + marker + " & sleep " + marker + "'; done",
			} {
				cmd := exec.Command("bash", "-c", c+"\nsleep 0.2\npgrep -c -x sleep")
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				cmd.WaitDelay = time.Second // a leftover holding the output open
				proc, err := w.sb.Start(cmd, p)
				if err != nil {
					t.Fatal(err)
				}
				cmd.Wait()
				left := processesWith("sleep " + marker)
				proc.Cleanup()
				if n, _ := strconv.Atoi(strings.TrimSpace(out.String())); n == 0 && p == WorkspaceWrite {
					t.Errorf("%v %q: the command's processes did not start:\n%s", p, c, out.String())
				}
				if len(left) > 0 {
					t.Errorf("%v %q left processes %v running after the command", p, c, left)
				}
				if pids := processesWith("sleep " + marker); len(pids) > 0 {
					t.Errorf("%v %q left processes %v running after Cleanup", p, c, pids)
					exec.Command("pkill", "-f", "sleep "+marker).Run()
				}
			}
		}
	})
}

// Without namespaces the helper ends the leftovers; if the helper itself
// is killed first (the caller's SIGKILL to the process group), its orphans
// come to the harness, a subreaper, and Cleanup ends them.
func TestOrphansOfAKilledHelperEnd(t *testing.T) {
	w := newWorld(t, WithNamespaces(false))
	marker := fmt.Sprintf("%d", 20000+os.Getpid()%20000)
	cmd := exec.Command("bash", "-c", "setsid -f sleep "+marker+"; ( (sleep "+marker+" &) & ); sleep 600")
	proc, err := w.sb.Start(cmd, WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; len(processesWith("sleep "+marker)) < 2; i++ {
		if i > 500 {
			t.Fatal("the command's processes did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Kill() // the helper, before it could clean up
	cmd.Wait()
	proc.Cleanup()
	if pids := processesWith("sleep " + marker); len(pids) > 0 {
		t.Errorf("orphans of a killed helper outlived the call: %v", pids)
		exec.Command("pkill", "-f", "sleep "+marker).Run()
	}
}

func TestSignalsDoNotReachTheHarness(t *testing.T) {
	eachRegime(t, func(t *testing.T, opts ...Option) {
		w := newWorld(t, opts...)
		victim := exec.Command("sleep", "30")
		if err := victim.Start(); err != nil {
			t.Fatal(err)
		}
		defer victim.Process.Kill()
		w.run(t, ReadOnly, fmt.Sprintf("kill -9 %d; kill -9 -1", victim.Process.Pid))
		w.run(t, WorkspaceWrite, fmt.Sprintf("kill -9 %d; kill -9 %d; kill -9 -1", victim.Process.Pid, os.Getpid()))
		done := make(chan error, 1)
		go func() { done <- victim.Wait() }()
		select {
		case err := <-done:
			t.Fatalf("a confined command killed a process outside the sandbox: %v", err)
		case <-time.After(300 * time.Millisecond):
		}
	})
}

// ps, top and pgrep work inside the sandbox and show the command's own
// processes only: not the harness, not a canary process outside.
func TestProcessToolsSeeOnlyTheCommand(t *testing.T) {
	requireNamespaces(t)
	w := newWorld(t)
	canary := exec.Command("sleep", "86421")
	if err := canary.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { canary.Process.Kill(); canary.Wait() }()
	self := fmt.Sprint(os.Getpid())
	for _, p := range []Policy{ReadOnly, WorkspaceWrite} {
		out, err := w.run(t, p, "sleep 13579 & ps -eo pid=,args=; ps aux | wc -l; pgrep -a sleep; top -b -n1 | tail -n +7; ls /proc | grep -c '^[0-9]'")
		if err != nil {
			t.Errorf("%v: ps/pgrep/top failed: %v\n%s", p, err, out)
		}
		if !strings.Contains(out, "sleep 13579") {
			t.Errorf("%v: the command's own processes are not listed:\n%s", p, out)
		}
		if strings.Contains(out, "86421") || strings.Contains(out, ".test") || regexpWord(out, self) {
			t.Errorf("%v: a process outside the command is visible:\n%s", p, out)
		}
	}
}

// regexpWord reports whether word appears in s as a whole field.
func regexpWord(s, word string) bool {
	for _, f := range strings.Fields(s) {
		if f == word {
			return true
		}
	}
	return false
}

func requireNamespaces(t *testing.T) {
	t.Helper()
	requireLandlock(t)
	if ok, why := ProbeNamespaces(); !ok {
		if os.Getenv("CI") != "" && os.Getenv(envRefused) == "" {
			t.Fatalf("no user namespaces on this CI machine: %s", why)
		}
		t.Skip(why)
	}
}

// The harness's secrets (its environment, its memory) are not readable
// from a confined command: with namespaces the harness is not in the
// command's /proc at all; without, Landlock forbids tracing it.
func TestHarnessSecretsUnreadable(t *testing.T) {
	const canary = "HARNESS-CANARY-7f3a9c"
	if os.Getenv("HARNESS9_TEST_API_KEY") != canary {
		// /proc/PID/environ shows the environment a process was started
		// with, not what it set since (t.Setenv): the test runs again in
		// a test binary started with the secret, as harness9 is.
		runSelf(t, "^TestHarnessSecretsUnreadable$", "HARNESS9_TEST_API_KEY="+canary)
		return
	}
	eachRegime(t, func(t *testing.T, opts ...Option) {
		w := newWorld(t, opts...)
		attacker := installAttacker(t, w.work)
		for _, p := range []Policy{ReadOnly, WorkspaceWrite} {
			out, _ := w.run(t, p, attacker+"scan "+reverse(canary)+"; cat /proc/"+fmt.Sprint(os.Getpid())+"/environ")
			if strings.Contains(out, canary) || strings.Contains(out, "FOUND") {
				t.Errorf("%v: a confined command read the harness's secret:\n%s", p, out)
			}
			if !strings.Contains(out, "scanned") {
				t.Errorf("%v: the scan did not run:\n%s", p, out)
			}
		}
	})
}

// ProtectSelf closes a process's environment and memory to other processes
// of the same user, confined or not. (Root reads them anyway: run as a
// user; CI does.)
func TestProtectSelf(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may read any process's memory; this test runs as a user (CI runs it as one)")
	}
	const canary = "PROTECTED-CANARY-51d2"
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	victim := exec.Command(self, attackArg, "protected")
	victim.Env = append(os.Environ(), "HARNESS9_TEST_API_KEY="+canary)
	stdout, _ := victim.StdoutPipe()
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { victim.Process.Kill(); victim.Wait() }()
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the protected process did not start: %q", line)
	}
	out, _ := exec.Command(self, attackArg, "scan", reverse(canary)).CombinedOutput()
	if bytes.Contains(out, []byte("FOUND in /proc/"+strconv.Itoa(victim.Process.Pid))) {
		t.Errorf("a process of the same user read a protected process:\n%s", out)
	}
}

// A user's commands keep its identity inside the user namespace: files
// they create are the user's, `id` says who they are.
func TestUserKeepsItsIdentity(t *testing.T) {
	requireNamespaces(t)
	w := newWorld(t)
	out, err := w.run(t, WorkspaceWrite, "id -u; id -g; touch mine; stat -c %u:%g mine")
	if err != nil {
		t.Fatal(err, out)
	}
	uid, gid := os.Geteuid(), os.Getegid()
	if want := fmt.Sprintf("%d\n%d\n%d:%d\n", uid, gid, uid, gid); out != want {
		t.Errorf("identity inside: got %q, want %q", out, want)
	}
	fi, err := os.Stat(w.work + "/mine")
	if err != nil {
		t.Fatal(err)
	}
	if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) != uid || int(st.Gid) != gid {
		t.Errorf("a file made inside belongs to %d:%d, not %d:%d", st.Uid, st.Gid, uid, gid)
	}
}

// runSelf runs the tests matching pattern again in a new test binary with
// env added to its environment, and fails unless they pass.
func runSelf(t *testing.T, pattern string, env ...string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run", pattern, "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("%s, run with %v: %v\n%s", pattern, env, err, out)
	}
}
