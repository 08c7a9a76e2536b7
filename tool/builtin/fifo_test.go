//go:build unix

package builtin

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Opening a named pipe for reading waits for a writer, and no timeout or
// Ctrl+C can interrupt an open(2): a FIFO in the workspace must be refused,
// not opened, or the whole agent hangs.
func TestFileToolsRefuseANamedPipe(t *testing.T) {
	ws, root := newWS(t)
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fails(t, NewReadFile(ws), ReadFileInput{Path: "pipe"}, "named pipe")
		fails(t, NewEditFile(ws), EditFileInput{Path: "pipe", OldString: "a", NewString: "b"}, "named pipe")
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a file tool blocked opening a named pipe")
	}
}
