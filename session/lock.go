package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrBusy is matched (errors.Is) by the *BusyError AcquireLock returns when
// another live process holds the session.
var ErrBusy = errors.New("session is busy")

// BusyError says which process holds a session's lock.
type BusyError struct {
	SessionID string
	PID       int    // 0 when the owner had not yet written its pid
	Host      string // the owner's host name, "" when unknown
	// Path is where the lock lives: the lock file, or for a store that
	// locks sessions itself (Locker) the store's description of its lock.
	Path string
}

func (e *BusyError) Error() string {
	owner := "another harness9 process"
	if e.PID > 0 {
		owner = fmt.Sprintf("harness9 process %d", e.PID)
		if e.Host != "" {
			owner += " on " + e.Host
		}
	}
	return fmt.Sprintf("session %s is busy: %s is running it (lock %s); wait for it to finish or stop it, then resume again — or start a new session without --resume/--continue",
		e.SessionID, owner, e.Path)
}

// Is makes errors.Is(err, ErrBusy) hold.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// Releaser is a held claim on a session; Release gives it up and is safe
// to call more than once.
type Releaser interface {
	Release() error
}

// Locker is implemented by a Store that enforces the one-writer-per-session
// rule itself, for every process on every host that shares it (a database
// server), where AcquireLock's lock file only sees one machine. A program
// that finds it uses it instead of AcquireLock. LockSession does not wait:
// while another live process holds the session it returns a *BusyError
// (errors.Is(err, ErrBusy)); a lock whose holder died is free again.
type Locker interface {
	LockSession(ctx context.Context, id string) (Releaser, error)
}

// LockSession takes the one-writer lock of session id: the store's own
// when it locks sessions for every host sharing it (Locker), else a lock
// file in dir (AcquireLock). errors.ErrUnsupported means the system has no
// advisory locks.
func LockSession(ctx context.Context, s Store, dir, id string) (Releaser, error) {
	if l, ok := s.(Locker); ok {
		return l.LockSession(ctx, id)
	}
	l, err := AcquireLock(dir, id)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// LockDir is where the session locks of a harness9 data directory live.
func LockDir(home string) string { return filepath.Join(home, "locks") }

// Lock is one process's exclusive claim on a session: while a process
// holds it, no other process may write to the session. It is an advisory
// lock of the operating system on <dir>/<session-id>.lock, so the kernel
// drops it when the owner dies, even by kill -9, and a lock left by a dead
// process never needs cleaning up. The file also holds the owner's pid and
// host, for the message another process shows.
type Lock struct {
	f    *os.File
	path string
}

// AcquireLock takes the lock of session id in dir (see LockDir), creating
// dir if needed. It does not wait: if a live process holds the lock it
// returns a *BusyError (errors.Is(err, ErrBusy)). On an operating system
// without advisory file locks it returns an error matching
// errors.ErrUnsupported.
func AcquireLock(dir, id string) (*Lock, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return nil, fmt.Errorf("lock session: invalid session id %q", id)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	path := filepath.Join(dir, id+".lock")
	// A released lock's file is removed. Between another process opening
	// the file and locking it, the file may have been removed and a new one
	// created: the lock is only valid on the file the path still names.
	for range 10 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("lock session %s: %w", id, err)
		}
		if err := tryLock(f); err != nil {
			_ = f.Close()
			if errors.Is(err, errLocked) {
				return nil, busy(id, path)
			}
			return nil, fmt.Errorf("lock session %s: %w", id, err)
		}
		if !samePath(f, path) {
			_ = f.Close()
			continue
		}
		owner := fmt.Sprintf("%d %s\n", os.Getpid(), hostname())
		if err := f.Truncate(0); err == nil {
			_, _ = f.WriteAt([]byte(owner), 0)
		}
		return &Lock{f: f, path: path}, nil
	}
	return nil, busy(id, path)
}

// Path returns the lock file's path.
func (l *Lock) Path() string { return l.path }

// Release gives the session up. It is safe to call more than once.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	// Remove before unlocking: a process that opened the old file and then
	// gets the lock sees that the path no longer names it and retries.
	_ = os.Remove(l.path)
	err := l.f.Close() // closing the descriptor drops the lock
	l.f = nil
	return err
}

// busy reads the owner written in the lock file into a BusyError.
func busy(id, path string) error {
	e := &BusyError{SessionID: id, Path: path}
	b, _ := os.ReadFile(path)
	pid, host, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
	e.PID, _ = strconv.Atoi(pid)
	e.Host = host
	return e
}

func samePath(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	return h
}

// errLocked is tryLock's answer when another open file holds the lock.
var errLocked = errors.New("locked")
