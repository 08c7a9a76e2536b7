//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// supervise is the helper without namespaces: it stays outside the
// command's Landlock domain (the command cannot signal or trace it where
// Landlock scopes signals), becomes a child subreaper so that everything
// the command starts, however it detaches (setsid, double fork), stays
// its descendant, forks the command from a confined thread, and once the
// command has exited kills every descendant left. It exits as the command
// did.
func supervise(spec helperSpec, path string, argv []string) int {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return helperFail(fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", err))
	}
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	// The harness's SIGTERM on a timeout reaches the whole group: the
	// command decides what to do with it, the helper must live to clean up.
	// (Handled, not ignored: an ignored signal would stay ignored in the
	// command.)
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	go func() {
		for range sigs {
		}
	}()
	if err := setLimits(spec.Limits); err != nil {
		return helperFail(err)
	}
	pid, err := forkConfined(spec, path, argv)
	if err != nil {
		return helperFail(fmt.Errorf("%s: %w", path, err))
	}
	var status unix.WaitStatus
	for {
		got, err := unix.Wait4(-1, &status, 0, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return helperFail(fmt.Errorf("waiting for the command: %w", err))
		}
		if got == pid {
			break
		}
	}
	killDescendants(os.Getpid())
	if status.Signaled() {
		dieBySignal(status.Signal())
	}
	return status.ExitStatus()
}

// forkConfined starts the command from a new OS thread that enters the
// Landlock domain and the seccomp filter first and is never given back to
// the Go scheduler (the runtime ends a locked thread whose goroutine
// returns), so the helper itself stays unconfined.
func forkConfined(spec helperSpec, path string, argv []string) (int, error) {
	files := []uintptr{0, 1, 2}
	for fd := 3; fd < spec.Ruleset; fd++ { // the caller's ExtraFiles come before the ruleset
		files = append(files, uintptr(fd))
	}
	type result struct {
		pid int
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		if err := confineThread(spec); err != nil {
			done <- result{err: err}
			return
		}
		pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: os.Environ(), Files: files})
		done <- result{pid, err}
	}()
	r := <-done
	return r.pid, r.err
}

// killDescendants kills every descendant of pid, which must be a child
// subreaper (and the caller, since it reaps them): orphans come back to it
// as their parents die, so killing its children until none is left
// reaches all of them, also those forked while the previous round was
// being killed.
func killDescendants(pid int) {
	for reapExited() {
		kids := children(pid)
		if len(kids) == 0 {
			time.Sleep(time.Millisecond) // a child the listing did not show yet
			continue
		}
		for _, k := range kids {
			_ = unix.Kill(k, unix.SIGKILL)
		}
		// Block until one of them is gone, so that every round progresses.
		unix.Wait4(-1, nil, 0, nil)
	}
}

// reapExited reaps every child that has exited, without blocking, and
// reports whether any child is left.
func reapExited() bool {
	for {
		got, err := unix.Wait4(-1, nil, unix.WNOHANG, nil)
		switch {
		case err == unix.EINTR:
		case err != nil:
			return err != unix.ECHILD
		case got == 0:
			return true
		}
	}
}

// children lists pid's living and zombie children: each thread's children
// file where the kernel has them, else a scan of every process's parent.
func children(pid int) []int {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err == nil {
		var out []int
		found := false
		for _, t := range tasks {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
			if err != nil {
				continue
			}
			found = true
			for _, f := range strings.Fields(string(b)) {
				if n, err := strconv.Atoi(f); err == nil {
					out = append(out, n)
				}
			}
		}
		if found {
			return out
		}
	}
	return childrenByScan(pid)
}

// childrenByScan finds pid's children from every process's stat file.
func childrenByScan(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if parentOf(n) == pid {
			out = append(out, n)
		}
	}
	return out
}

// parentOf reads a process's parent from /proc/PID/stat (-1 when gone).
func parentOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// The command name is in parentheses and may contain anything.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return -1
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return -1
	}
	return ppid
}

// dieBySignal ends the helper with the signal that ended the command, so
// the harness sees what the command's own parent would have seen: the
// handler is reset to the default (the Go runtime's would intercept it)
// and the signal unblocked, then sent to this thread.
func dieBySignal(sig syscall.Signal) {
	signal.Reset(sig)
	var sa struct {
		handler  uintptr
		flags    uint64
		restorer uintptr
		mask     uint64
	}
	unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&sa)), 0, 8, 0, 0)
	mask := uint64(1) << (uint(sig) - 1)
	unix.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_UNBLOCK, uintptr(unsafe.Pointer(&mask)), 0, 8, 0, 0)
	_ = unix.Tgkill(os.Getpid(), unix.Gettid(), sig)
	os.Exit(128 + int(sig)) // not reached unless the signal does not end a process
}
