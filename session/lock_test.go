package session_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/session"
)

func TestLockIsExclusiveAndReleased(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "locks")
	a, err := session.AcquireLock(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = session.AcquireLock(dir, "s1")
	var be *session.BusyError
	if !errors.As(err, &be) || !errors.Is(err, session.ErrBusy) {
		t.Fatalf("second acquire: %v, want a BusyError", err)
	}
	if be.PID != os.Getpid() || be.SessionID != "s1" || !strings.Contains(err.Error(), fmt.Sprint(os.Getpid())) ||
		!strings.Contains(err.Error(), "busy") {
		t.Fatalf("busy error = %+v (%v)", be, err)
	}
	// Another session is not affected.
	b, err := session.AcquireLock(dir, "s2")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
	if err := a.Release(); err != nil {
		t.Fatalf("second release: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "s1.lock")); !os.IsNotExist(err) {
		t.Fatalf("released lock file still there: %v", err)
	}
	c, err := session.AcquireLock(dir, "s1")
	if err != nil {
		t.Fatalf("acquire after release: %v", err)
	}
	c.Release()
}

func TestLockRejectsPathIDs(t *testing.T) {
	for _, id := range []string{"", "..", "a/b", `a\b`} {
		if _, err := session.AcquireLock(t.TempDir(), id); err == nil {
			t.Errorf("id %q accepted", id)
		}
	}
}

// TestLockHelper holds a lock until it is killed (the child process of
// TestLockOfAKilledProcessIsTakenOver).
func TestLockHelper(t *testing.T) {
	dir := os.Getenv("H9_LOCK_DIR")
	if dir == "" {
		t.Skip("helper process")
	}
	if _, err := session.AcquireLock(dir, "s1"); err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	fmt.Println("LOCKED")
	time.Sleep(time.Minute)
	os.Exit(1)
}

func TestLockOfAKilledProcessIsTakenOver(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelper$")
	cmd.Env = append(os.Environ(), "H9_LOCK_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "LOCKED" {
		if strings.HasPrefix(sc.Text(), "ERROR") {
			t.Fatal(sc.Text())
		}
	}
	_, err = session.AcquireLock(dir, "s1")
	var be *session.BusyError
	if !errors.As(err, &be) || be.PID != cmd.Process.Pid {
		t.Fatalf("while the helper lives: %v, want busy with pid %d", err, cmd.Process.Pid)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: the helper cleans nothing up
		t.Fatal(err)
	}
	_ = cmd.Wait()
	l, err := session.AcquireLock(dir, "s1")
	if err != nil {
		t.Fatalf("after kill -9: %v", err)
	}
	defer l.Release()
	b, _ := os.ReadFile(l.Path())
	if !strings.HasPrefix(string(b), fmt.Sprint(os.Getpid())+" ") {
		t.Fatalf("lock file holds %q, want this process's pid", b)
	}
}
