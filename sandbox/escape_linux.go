//go:build linux

package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/harness9/harness9/sandbox/internal/helper"
)

// Without namespaces each command's helper is its subreaper and ends what
// the command leaves behind. If the helper itself dies before it could (a
// SIGKILL to the command's process group on a timeout, or a command that
// kills it where Landlock cannot scope signals), its orphans would go to
// init and live on; so the harness becomes a child subreaper too, and
// after every command ends the orphans it was given: children it did not
// start whose seccomp filters show they come from a confined command.

var tracked struct {
	sync.Mutex
	live      map[int]bool // processes Start started and Cleanup has not ended
	subreaper bool
}

// startTracked starts cmd and records its process, under the lock that
// endEscapees holds, so that a new command is never taken for an orphan.
func startTracked(cmd *exec.Cmd, subreaper bool) error {
	tracked.Lock()
	defer tracked.Unlock()
	if subreaper && !tracked.subreaper {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return fmt.Errorf("sandbox: prctl(PR_SET_CHILD_SUBREAPER): %w", err)
		}
		tracked.subreaper = true
	}
	if err := startFromForker(cmd); err != nil {
		return err
	}
	if tracked.live == nil {
		tracked.live = map[int]bool{}
	}
	tracked.live[cmd.Process.Pid] = true
	return nil
}

// The helper of a command in namespaces asks the kernel to kill it when
// its parent dies (helper.Spec.Lifeline), and the kernel counts a parent
// as dead when the thread that forked it exits, which a Go program's
// threads may do while it runs (a goroutine that ends locked to its
// thread takes the thread with it). So every helper is forked by one
// goroutine locked to its thread for the life of the process: its
// commands die with the harness, not with a thread.
var forker struct {
	once sync.Once
	work chan func()
}

// startFromForker starts cmd on the forker's thread.
func startFromForker(cmd *exec.Cmd) error {
	forker.once.Do(func() {
		forker.work = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the process
			for f := range forker.work {
				f()
			}
		}()
	})
	done := make(chan error, 1)
	forker.work <- func() { done <- cmd.Start() }
	return <-done
}

// lifeline is the pipe every helper watches (helper.Spec.Lifeline): the
// harness holds its write end, close-on-exec and never written, so the
// read end reads end of file exactly when the harness is gone. The write
// end is kept referenced here so that no finalizer ever closes it.
var lifeline struct {
	once sync.Once
	r, w *os.File
	err  error
}

// lifelineFile returns the read end of the lifeline, to pass to a helper.
func lifelineFile() (*os.File, error) {
	lifeline.once.Do(func() {
		lifeline.r, lifeline.w, lifeline.err = os.Pipe()
	})
	if lifeline.err != nil {
		return nil, fmt.Errorf("sandbox: the pipe that ends commands with the harness: %w", lifeline.err)
	}
	return lifeline.r, nil
}

// untrack forgets the process cmd started and, when the harness is a
// subreaper, ends the orphans of confined commands it has been given.
// Orphans come to the harness only when a helper dies without ending its
// command's descendants (it exits normally only after it has), so a helper
// that exited is not followed by a look for them.
func untrack(cmd *exec.Cmd) {
	tracked.Lock()
	defer tracked.Unlock()
	delete(tracked.live, cmd.Process.Pid)
	if tracked.subreaper && (cmd.ProcessState == nil || !cmd.ProcessState.Exited()) {
		endEscapees()
	}
}

// endEscapees kills and reaps the harness's children that it did not
// start and that run under more seccomp filters than the harness: orphans
// of a confined command whose helper died. Their own children come back to
// the harness as they die, hence the rounds.
func endEscapees() {
	self := os.Getpid()
	own := seccompFilters(self)
	for {
		var found []int
		for _, k := range helper.Children(self) {
			if !tracked.live[k] && seccompFilters(k) > own {
				found = append(found, k)
			}
		}
		if len(found) == 0 {
			return
		}
		for _, k := range found {
			_ = unix.Kill(k, unix.SIGKILL)
		}
		for _, k := range found {
			for {
				if _, err := unix.Wait4(k, nil, 0, nil); err != unix.EINTR {
					break
				}
			}
		}
	}
}

// seccompFilters is the number of seccomp filters pid runs under (its
// status file's Seccomp_filters, or 1 for a filtered process on a kernel
// that does not count them); -1 when it cannot be read.
func seccompFilters(pid int) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	defer f.Close()
	mode := -1
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			continue
		}
		switch k {
		case "Seccomp_filters":
			return n
		case "Seccomp":
			mode = n
		}
	}
	if mode == 2 {
		return 1
	}
	return min(mode, 0)
}
