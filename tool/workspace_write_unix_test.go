//go:build unix

package tool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO is refused before it is opened for writing, too: opening one
// for writing blocks until a reader comes.
func TestOpenFileRefusesAFIFOPromptly(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	tree(t, root, map[string]string{"link": "@pipe"})
	ws, err := NewWorkspace(root, WithHome(""))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan []error, 1)
	go func() {
		var errs []error
		for _, p := range []string{"pipe", "link"} {
			_, err := ws.Append(p, []byte("x"))
			errs = append(errs, err)
			_, err = ws.OpenFile(p, os.O_WRONLY, 0)
			errs = append(errs, err)
		}
		done <- errs
	}()
	select {
	case errs := <-done:
		for i, err := range errs {
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("call %d: %v, want ErrNotRegular", i, err)
			}
		}
	case <-ctx.Done():
		t.Fatal("opening a FIFO for writing through the workspace hung")
	}
}

// A directory swapped for a link into the deny list between the checks
// and the open (another process racing the write) is caught where the
// kernel says the file is, before anything is truncated or written.
func TestOpenFileChecksWhereTheKernelOpened(t *testing.T) {
	home := t.TempDir()
	tree(t, home, map[string]string{".ssh/id_rsa": secret, "proj/id_rsa": "decoy"})
	ws, err := NewWorkspace(home, WithHome(home))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(home, "proj"))
	if err != nil {
		t.Fatal(err)
	}
	_, kernel := openedPath(f)
	f.Close()
	if !kernel {
		t.Skip("no /proc/self/fd here")
	}
	testHookBeforeOpen = func(string) {
		if err := os.Rename(filepath.Join(home, "proj"), filepath.Join(home, "proj.old")); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(".ssh", filepath.Join(home, "proj")); err != nil {
			t.Error(err)
		}
	}
	defer func() { testHookBeforeOpen = nil }()
	if f, err := ws.OpenFile("proj/id_rsa", os.O_WRONLY|os.O_TRUNC, 0); err == nil {
		f.Close()
		t.Error("the swapped-in link was written through")
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".ssh", "id_rsa")); string(b) != secret {
		t.Errorf("the denied file was changed: %q", b)
	}
}
