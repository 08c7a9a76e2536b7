//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/sandbox/internal/helper"
)

// A fork flood is stopped at the process limit, not only ended with the
// call.
func TestForkFloodStopped(t *testing.T) {
	const limit = 64
	eachRegime(t, func(t *testing.T, opts ...Option) {
		w := newWorld(t, append(opts, WithLimits(Limits{Processes: limit}))...)
		if w.sb.Regime() == RegimeNoNamespaces && os.Geteuid() == 0 {
			t.Skip("the kernel does not apply RLIMIT_NPROC to root outside a user namespace (documented)")
		}
		attacker := installAttacker(t, w.work)
		allowed := limit
		switch {
		case w.sb.Regime() == RegimeNoNamespaces:
			// Without namespaces the limit counts from the machine's tasks.
			allowed += tasksNow(t) + 50
		case os.Geteuid() == 0:
			// Root is bound by its PID namespace's pid_max, at least 301.
			allowed = max(limit, helper.MinPIDMax-1)
		}
		attempts := allowed + 200
		for _, p := range []Policy{ReadOnly, WorkspaceWrite} {
			out, _ := w.run(t, p, fmt.Sprintf("%sflood %d", attacker, attempts))
			m := regexp.MustCompile(`started (\d+) of`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("%v: the flood did not run:\n%s", p, out)
			}
			if n, _ := strconv.Atoi(m[1]); n >= attempts || n > allowed {
				t.Errorf("%v: a fork flood started %d processes with a limit of %d:\n%s", p, n, limit, out)
			}
			if pids := processesWith("sleep 6061"); len(pids) > 0 {
				t.Errorf("%v: %d flood processes outlived the call", p, len(pids))
			}
		}
	})
}

// tasksNow is the machine's task count (see helper.RunningTasks).
func tasksNow(t *testing.T) int {
	n := int(helper.RunningTasks())
	if n == 0 {
		t.Skip("no /proc/loadavg")
	}
	return n
}

// A file can grow only to the file-size limit.
func TestFileSizeLimit(t *testing.T) {
	eachRegime(t, func(t *testing.T, opts ...Option) {
		w := newWorld(t, append(opts, WithLimits(Limits{FileSize: 1 << 20}))...)
		out, _ := w.run(t, WorkspaceWrite, "head -c 3000000 /dev/zero > big; echo $?")
		fi, err := os.Stat(filepath.Join(w.work, "big"))
		if err != nil {
			t.Fatalf("the command did not write: %v\n%s", err, out)
		}
		if fi.Size() > 1<<20 {
			t.Errorf("a %d-byte file was written with a 1 MiB limit", fi.Size())
		}
	})
}

// A process that spins is killed at its CPU-time limit, long before the
// wall-clock timeout that would otherwise end it.
func TestCPUTimeLimit(t *testing.T) {
	eachRegime(t, func(t *testing.T, opts ...Option) {
		w := newWorld(t, append(opts, WithLimits(Limits{CPUTime: time.Second}))...)
		out, _ := w.run(t, WorkspaceWrite, "timeout 60 sh -c 'while :; do :; done'; echo status $?")
		// 152 = 128+SIGXCPU, 137 = 128+SIGKILL (the hard limit); timeout says 124.
		if !strings.Contains(out, "status 152") && !strings.Contains(out, "status 137") {
			t.Errorf("a spinning process was not stopped by its CPU limit:\n%s", out)
		}
	})
}
