package sandbox

import (
	"runtime"
	"time"
)

// Limits bound the resources of one confined command. A zero field means
// no limit of that kind.
type Limits struct {
	// Processes is how many processes and threads the command may have at
	// once: a fork flood fails at the limit instead of filling the
	// machine. With user namespaces the kernel counts the command's own
	// tasks only (RLIMIT_NPROC in the user namespace; for root, whom
	// RLIMIT_NPROC does not bind, the PID namespace's pid_max on Linux 6.14
	// and later, which cannot go below 300). Without them RLIMIT_NPROC
	// counts every task of the user, so the limit is set that many above
	// what the machine runs when the command starts, and root is not
	// limited at all.
	Processes int
	// FileSize is the largest file, in bytes, the command may write
	// (RLIMIT_FSIZE); a write past it fails with EFBIG.
	FileSize int64
	// CPUTime is the processor time each process of the command may use
	// (RLIMIT_CPU), all its threads together; a process past it is killed.
	// A LongLived process (a server that lives for the session) has none.
	CPUTime time.Duration
}

// The default limits are high enough for `go test ./...` of a large module
// and low enough to stop a fork flood and a runaway writer before they
// hurt the machine. A cold `go build ./... && go vet ./...` of harness9
// itself peaked at 25 tasks on 2 CPUs; a parallel build runs a compiler
// per CPU, each with up to a thread per CPU, hence the per-CPU term.
const (
	DefaultProcesses       = 4096
	DefaultProcessesPerCPU = 128
	DefaultFileSize        = 8 << 30 // 8 GiB
	DefaultCPUTime         = time.Hour
)

// DefaultLimits are the limits of a sandbox made without WithLimits:
// DefaultProcesses tasks (DefaultProcessesPerCPU per CPU on machines with
// more than 32), DefaultFileSize, DefaultCPUTime.
func DefaultLimits() Limits {
	return Limits{
		Processes: max(DefaultProcesses, DefaultProcessesPerCPU*runtime.NumCPU()),
		FileSize:  DefaultFileSize,
		CPUTime:   DefaultCPUTime,
	}
}

// WithLimits sets the resource limits of every command the sandbox starts
// (DefaultLimits otherwise; the zero Limits is no limit at all).
func WithLimits(l Limits) Option {
	return func(s *Sandbox) { s.limits = l }
}

// WithCommandLimits replaces the sandbox's limits for one command.
func WithCommandLimits(l Limits) StartOption {
	return func(o *startOptions) { o.limits = &l }
}
