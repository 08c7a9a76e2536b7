//go:build linux

package helper

import (
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// supervise is the helper without namespaces: it stays outside the
// command's Landlock domain (the command cannot signal or trace it where
// Landlock scopes signals), becomes a child subreaper so that everything
// the command starts, however it detaches (setsid, double fork), stays
// its descendant, forks the command from a confined thread, and once the
// command has exited kills every descendant left. It exits as the command
// did.
func supervise(spec Spec, path string, argv, env []string) int {
	if err := prctl(prSetChildSubreaper, 1); err != nil {
		return fail(wrap("prctl(PR_SET_CHILD_SUBREAPER)", err))
	}
	_ = prctl(prSetDumpable, 0)
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
		return fail(err)
	}
	pid, err := forkConfined(spec, path, argv, env)
	if err != nil {
		return fail(wrap(path, err))
	}
	if spec.Lifeline > 0 {
		// When the harness dies the command dies, and with it (below)
		// everything it left.
		go func() {
			if awaitHarnessGone(spec.Lifeline) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}()
	}
	var status syscall.WaitStatus
	for {
		got, err := syscall.Wait4(-1, &status, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fail(wrap("waiting for the command", err))
		}
		if got == pid {
			break
		}
	}
	KillDescendants(os.Getpid())
	if status.Signaled() {
		signal.Reset(status.Signal())
		dieBySignal(status.Signal())
		return 128 + int(status.Signal()) // a signal that does not end a process
	}
	return status.ExitStatus()
}

// forkConfined starts the command from a new OS thread that drops
// capabilities and enters the Landlock domain and the seccomp filter first and is never given back to
// the Go scheduler (the runtime ends a locked thread whose goroutine
// returns), so the helper itself stays unconfined.
func forkConfined(spec Spec, path string, argv, env []string) (int, error) {
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
		// Root's command keeps only the file-permission capabilities
		// (spec.Keep), as in a user namespace: with all of them it would
		// administer the machine (its host name, its network through
		// netlink) and read other processes' memory and environment,
		// the harness's included (CAP_SYS_PTRACE passes its undumpable
		// mark).
		if err := dropCapabilities(spec.Keep); err != nil {
			done <- result{err: err}
			return
		}
		if err := confineThread(spec); err != nil {
			done <- result{err: err}
			return
		}
		pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: env, Files: files})
		done <- result{pid, err}
	}()
	r := <-done
	return r.pid, r.err
}

// KillDescendants kills every descendant of pid, which must be a child
// subreaper (and the caller, since it reaps them): orphans come back to it
// as their parents die, so killing its children until none is left
// reaches all of them, also those forked while the previous round was
// being killed.
func KillDescendants(pid int) {
	for reapExited() {
		kids := Children(pid)
		if len(kids) == 0 {
			time.Sleep(time.Millisecond) // a child the listing did not show yet
			continue
		}
		for _, k := range kids {
			_ = syscall.Kill(k, syscall.SIGKILL)
		}
		// Block until one of them is gone, so that every round progresses.
		syscall.Wait4(-1, nil, 0, nil)
	}
}

// reapExited reaps every child that has exited, without blocking, and
// reports whether any child is left.
func reapExited() bool {
	for {
		got, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
		switch {
		case err == syscall.EINTR:
		case err != nil:
			return err != syscall.ECHILD
		case got == 0:
			return true
		}
	}
}

// Children lists pid's living and zombie children: each thread's children
// file where the kernel has them, else a scan of every process's parent.
func Children(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, err := os.ReadDir(dir)
	if err == nil {
		var out []int
		found := false
		for _, t := range tasks {
			b, err := os.ReadFile(dir + t.Name() + "/children")
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
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
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
