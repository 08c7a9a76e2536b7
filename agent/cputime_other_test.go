//go:build !unix

package agent_test

import "time"

// processCPU is not measured here: BenchmarkTurnAt reports 0 cpu-ns/turn.
func processCPU() time.Duration { return 0 }
