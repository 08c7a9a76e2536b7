package sandbox

import "sync"

// minABI is the oldest Landlock ABI the sandbox accepts: ABI 4 (Linux 6.7)
// is the first that can deny TCP bind and connect, and a read-only sandbox
// that can still talk to the network is not one.
const minABI = 4

// Support says whether the kernel sandbox can be enforced on this machine.
type Support struct {
	// Available is true when commands can be confined.
	Available bool
	// ABI is the kernel's Landlock ABI version, 0 when it has none.
	ABI int
	// Reason says why the sandbox is unavailable, for people.
	Reason string
}

var (
	probeOnce sync.Once
	probed    Support
)

// Probe reports whether the kernel sandbox is available. The kernel is asked
// once per process.
func Probe() Support {
	probeOnce.Do(func() { probed = probeLandlock() })
	return probed
}
