//go:build linux

package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// ProtectSelf makes the calling process not dumpable: /proc/PID/environ,
// mem, maps and fd of it become unreadable to other processes of the same
// user (root's excepted), it cannot be traced by them, and it leaves no
// core dump. A harness holding provider keys in its environment and
// memory calls it at start, before it runs anything for a model. The cost:
// a debugger can attach only as root. Children are not affected (the
// attribute is reset when they execute a program).
func ProtectSelf() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: prctl(PR_SET_DUMPABLE): %w", err)
	}
	return nil
}
