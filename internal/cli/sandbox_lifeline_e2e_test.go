package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/harness9/harness9/sandbox"
)

// harness9 killed with SIGKILL (the OOM killer, a crash, kill -9) while a
// command runs leaves nothing behind: neither the command nor what it
// started in a session of its own (setsid, as a daemon would), in both
// regimes. They used to live on, reparented to init, with nobody left to
// stop them.
func TestBinaryKilledLeavesNoCommandBehind(t *testing.T) {
	if sup := sandbox.Probe(); !sup.Available {
		t.Skipf("no kernel sandbox: %s", sup.Reason)
	}
	for _, regime := range []string{"namespaces", "refused"} {
		t.Run(regime, func(t *testing.T) {
			h := regimeHarness(t, regime)
			// Durations no other process uses, to find them by.
			n := 700000 + os.Getpid()%100000
			fg, bg := "sleep "+strconv.Itoa(n), "sleep "+strconv.Itoa(n+1)
			cmd := exec.Command(h.binary(), "run", "--json", "--allow", "bash", "-C", h.workdir,
				"-m", h.script(bashTurns(fmt.Sprintf("(setsid %s &) ; %s", bg, fg))), "wait")
			cmd.Env = h.env
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			}()
			left := func() []string { return processesRunning(fg, bg) }
			deadline := time.Now().Add(time.Minute)
			for len(left()) < 2 {
				if time.Now().After(deadline) {
					t.Fatalf("the command did not start both processes: %v\n%s", left(), stderr.String())
				}
				time.Sleep(50 * time.Millisecond)
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			deadline = time.Now().Add(10 * time.Second)
			for len(left()) > 0 && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			if l := left(); len(l) > 0 {
				for _, pid := range l {
					if p, err := strconv.Atoi(pid); err == nil {
						_ = syscallKill(p)
					}
				}
				t.Fatalf("harness9 was killed; its command's processes live on: %v", l)
			}
		})
	}
}

// processesRunning lists the pids of processes whose command line is one
// of cmds exactly (arguments separated by spaces), zombies left out.
func processesRunning(cmds ...string) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || len(b) == 0 {
			continue
		}
		line := string(bytes.ReplaceAll(bytes.TrimRight(b, "\x00"), []byte{0}, []byte{' '}))
		for _, c := range cmds {
			if line == c {
				pids = append(pids, e.Name())
			}
		}
	}
	return pids
}

func syscallKill(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
