//go:build !linux

package longrun

import "time"

// ProcessCPU is 0 off Linux: Tenth.CPU is then not measured.
func ProcessCPU() time.Duration { return 0 }

// ThreadsCPU is 0 off Linux: Tenth.CPU is then not measured.
func ThreadsCPU(int) func() time.Duration { return func() time.Duration { return 0 } }
