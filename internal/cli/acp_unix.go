//go:build unix

package cli

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// isStdout reports whether w is the process's standard output.
func isStdout(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && f.Fd() == uintptr(unix.Stdout)
}

// reserveStdout duplicates standard output for the protocol and points
// file descriptor 1 at standard error.
func reserveStdout() (io.Writer, error) {
	fd, err := unix.Dup(unix.Stdout)
	if err != nil {
		return nil, fmt.Errorf("cannot keep standard output for the protocol: %w", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.Dup2(unix.Stderr, unix.Stdout); err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("cannot point standard output at standard error: %w", err)
	}
	return os.NewFile(uintptr(fd), "protocol"), nil
}
