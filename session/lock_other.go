//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package session

import (
	"errors"
	"fmt"
	"os"
	"runtime"
)

// tryLock reports that this operating system has no advisory file lock
// harness9 uses; the caller decides whether to go on without one.
func tryLock(*os.File) error {
	return fmt.Errorf("session locks on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}
