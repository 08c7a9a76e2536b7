//go:build unix

package agent_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) this process has used. On
// a machine shared with other work it measures a benchmark's own cost
// better than the wall clock, which also counts time spent waiting for a
// core.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
