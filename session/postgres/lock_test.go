package postgres

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/internal/lib/pgtest"
	"github.com/harness9/harness9/session"
)

// holdEnv makes the test binary a lock holder: it locks the session named
// in the value ("DSN\tID"), says "locked" and waits to be killed.
const holdEnv = "HARNESS9_PGTEST_HOLD"

func init() {
	v := os.Getenv(holdEnv)
	if v == "" {
		return
	}
	dsn, id, _ := strings.Cut(v, "\t")
	s, err := Open(context.Background(), dsn, WithHostname("holder-host"))
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	if _, err := s.LockSession(context.Background(), id); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("locked")
	select {} // until killed
}

func wantBusy(t *testing.T, err error, pid int, host string) {
	t.Helper()
	var be *session.BusyError
	if !errors.As(err, &be) || !errors.Is(err, session.ErrBusy) {
		t.Fatalf("err = %v, want a *session.BusyError", err)
	}
	if be.PID != pid || be.Host != host {
		t.Errorf("busy names pid %d on %q, want %d on %q", be.PID, be.Host, pid, host)
	}
	if !strings.Contains(err.Error(), "busy") || !strings.Contains(err.Error(), fmt.Sprint(pid)) {
		t.Errorf("message %q lacks busy and the pid", err)
	}
}

// TestLockContention: two pools (two hosts) want one session; the second
// is told who holds it, other sessions are free, and release hands it over.
func TestLockContention(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	a := openTest(t, dsn, WithHostname("host-a"))
	b := openTest(t, dsn, WithHostname("host-b"))
	la, err := a.LockSession(ctx, "sess-1")
	if err != nil {
		t.Fatalf("first lock: %v", err)
	}
	_, err = b.LockSession(ctx, "sess-1")
	wantBusy(t, err, os.Getpid(), "host-a")
	// A second claim from the same store is refused too: the lock belongs
	// to one connection, not to the process.
	_, err = a.LockSession(ctx, "sess-1")
	wantBusy(t, err, os.Getpid(), "host-a")
	lb2, err := b.LockSession(ctx, "sess-2")
	if err != nil {
		t.Fatalf("another session: %v", err)
	}
	defer lb2.Release()
	if err := la.Release(); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if err := la.Release(); err != nil {
		t.Fatalf("second Release: %v", err)
	}
	lb, err := b.LockSession(ctx, "sess-1")
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	_, err = a.LockSession(ctx, "sess-1")
	wantBusy(t, err, os.Getpid(), "host-b")
	_ = lb.Release()
}

// TestKilledHolderIsTakenOver: a process holding a session is killed with
// SIGKILL; the server drops its connection and with it the lock, which
// another process then takes. Until then the holder is named by its pid.
func TestKilledHolderIsTakenOver(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	s := openTest(t, dsn, WithHostname("taker"))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holdEnv+"="+dsn+"\tsess-k")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "locked" {
		t.Fatalf("holder said %q", line)
	}
	_, err = s.LockSession(ctx, "sess-k")
	wantBusy(t, err, cmd.Process.Pid, "holder-host")

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	// The server notices the closed socket on its own schedule; wait for
	// it, bounded, rather than assume how long that takes.
	deadline := time.Now().Add(30 * time.Second)
	for {
		l, err := s.LockSession(ctx, "sess-k")
		if err == nil {
			_ = l.Release()
			break
		}
		if !errors.Is(err, session.ErrBusy) || time.Now().After(deadline) {
			t.Fatalf("lock of a dead holder's session: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
