package longrun

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// ProcessCPU returns the CPU time this process has used: a Model.CPU for
// a harness running in the model's process.
func ProcessCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// ThreadsCPU returns a Model.CPU for a harness in process pid: the time
// its threads have spent on a CPU (/proc/PID/task/*/schedstat, in
// nanoseconds). A thread that ended is no longer counted, which a turn's
// non-negative time hides.
func ThreadsCPU(pid int) func() time.Duration {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "task")
	return func() time.Duration {
		tasks, err := os.ReadDir(dir)
		if err != nil {
			return 0
		}
		var sum time.Duration
		for _, t := range tasks {
			b, err := os.ReadFile(filepath.Join(dir, t.Name(), "schedstat"))
			if err != nil {
				continue
			}
			f, _, _ := strings.Cut(string(b), " ")
			if ns, err := strconv.ParseInt(f, 10, 64); err == nil {
				sum += time.Duration(ns)
			}
		}
		return sum
	}
}
