//go:build linux

// Package helper is the part of the sandbox that runs in a confined
// command's own process, before the command: the program itself,
// re-executed from /proc/self/exe under the name Arg0. It does what Go's
// os/exec cannot do between fork and exec: map the user's ids in the new
// user namespace, mount a fresh /proc, set the resource limits, drop
// capabilities, enter the Landlock domain and the seccomp filter; then it
// executes the command (with namespaces) or stays as the command's
// subreaper and ends every process the command leaves behind (without).
//
// It runs from this package's init function: a program that imports the
// sandbox cannot forget to install it, test binaries run it too, and it
// starts before most of the program's packages are initialised (this
// package imports only early parts of the standard library and
// golang.org/x/sys/unix, whose own imports are such parts too, so the
// runtime reaches it sooner: about 5 ms into harness9's start instead of
// 9).
package helper

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Arg0 is the helper's program name; a process started with it runs the
// helper instead of the program.
const Arg0 = "harness9-sandbox-helper"

func init() {
	if len(os.Args) >= 2 && os.Args[0] == Arg0 {
		os.Exit(run(os.Args[1:]))
	}
}

// Exit statuses of a helper that could not run the command, as a shell
// reports them.
const (
	exitCannotRun = 126
	exitNotFound  = 127
)

func run(args []string) int {
	spec, err := Decode(args[0])
	if err != nil {
		return fail(err)
	}
	if err := closeInherited(spec.lastFile()); err != nil {
		return fail(err)
	}
	env, err := readEnv(spec.Env)
	if err != nil {
		return fail(err)
	}
	if spec.Lifeline > 0 {
		// The command never gets the lifeline: only this process watches it.
		syscall.CloseOnExec(spec.Lifeline)
	}
	// Every per-thread attribute (capabilities, no_new_privs, Landlock,
	// seccomp) is set on this thread, which then executes or forks the
	// command.
	runtime.LockOSThread()
	if spec.Mode == ModeProbe {
		if err := mapSelf(spec); err != nil {
			return fail(err)
		}
		if err := mountProc(); err != nil {
			return fail(err)
		}
		return 0
	}
	if len(args) < 3 {
		return fail(errors.New("no command"))
	}
	switch spec.Mode {
	case ModeExec:
		if err := execConfined(spec, args[1], args[2:], env); err != nil {
			return fail(err)
		}
		return 0
	case ModeSupervise:
		return supervise(spec, args[1], args[2:], env)
	}
	return fail(errors.New("unknown helper mode " + strconv.Quote(spec.Mode)))
}

func fail(err error) int {
	os.Stderr.WriteString("harness9 sandbox: " + err.Error() + "\n")
	if errors.Is(err, syscall.ENOENT) {
		return exitNotFound
	}
	return exitCannotRun
}

// wrap prefixes an error with what was being done.
func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return &stepError{what, err}
}

type stepError struct {
	what string
	err  error
}

func (e *stepError) Error() string { return e.what + ": " + e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

// execConfined runs in the command's new user, PID, mount, IPC (and
// network) namespaces: it mounts a /proc that shows only the command's
// processes, confines this thread and executes the command. It returns
// only on failure.
func execConfined(spec Spec, path string, argv, env []string) error {
	if err := mapSelf(spec); err != nil {
		return err
	}
	if err := mountProc(); err != nil {
		return err
	}
	if spec.Proc {
		if err := grantProc(spec.Ruleset); err != nil {
			return err
		}
	}
	limitPIDs(spec.Limits.Processes)
	if err := setLimits(spec.Limits); err != nil {
		return err
	}
	if err := dropCapabilities(spec.Keep); err != nil {
		return err
	}
	if err := tieToHarness(spec.Lifeline); err != nil {
		return err
	}
	if err := confineThread(spec); err != nil {
		return err
	}
	return wrap(path, syscall.Exec(path, argv, env))
}

// tieToHarness makes the kernel kill this process, which is about to
// become the command and the init of its PID namespace (so everything in
// the namespace with it), when the harness that started it dies. The
// setting survives the exec (the command is no set-user-ID program, and
// its credentials only lose capabilities). The harness may have died
// before: its lifeline then reads end of file, and the command is not
// started.
func tieToHarness(lifeline int) error {
	if lifeline <= 0 {
		return nil
	}
	if err := prctl(prSetPdeathsig, uintptr(syscall.SIGKILL)); err != nil {
		return wrap("prctl(PR_SET_PDEATHSIG)", err)
	}
	if harnessGone(lifeline) {
		return errors.New("the harness that started this command has exited")
	}
	return nil
}

// harnessGone reports, without waiting, whether the lifeline's write end
// is closed: the harness has exited.
func harnessGone(lifeline int) bool {
	gone, _ := pollHangup(lifeline, false)
	return gone
}

// awaitHarnessGone blocks until the harness has exited and reports true;
// false if the lifeline cannot be watched (then nothing is done).
func awaitHarnessGone(lifeline int) bool {
	gone, err := pollHangup(lifeline, true)
	return gone && err == nil
}

// pollHangup reports whether fd, a pipe's read end, has no writer left
// (POLLHUP), waiting for that when wait. It polls rather than reads: the
// lifeline's open file is shared by every helper of the harness, so its
// blocking mode (a file status flag) must not be changed by one of them,
// and nothing is ever read from it. No event is asked for: POLLHUP and
// POLLERR are reported regardless.
func pollHangup(fd int, wait bool) (bool, error) {
	fds := []unix.PollFd{{Fd: int32(fd)}}
	var timeout *unix.Timespec // nil: no time limit
	if !wait {
		timeout = &unix.Timespec{}
	}
	for {
		n, err := unix.Ppoll(fds, timeout, nil)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return false, err
		case n == 0:
			return false, nil // not yet (only without wait)
		}
		return fds[0].Revents&unix.POLLHUP != 0, nil
	}
}

// closeInherited marks every file descriptor above last close-on-exec:
// those the harness passed on purpose end at last, and whatever else this
// process holds it inherited from the harness, which inherited it without
// close-on-exec from whatever started it (a socket to a daemon, a
// terminal, a job runner's pipe). The command gets none of them. (Marked,
// not closed: the Go runtime may already have opened descriptors of its
// own above last.)
func closeInherited(last int) error {
	const closeRangeCloexec = 1 << 2
	if _, _, e := syscall.RawSyscall(sysCloseRange, uintptr(last+1), ^uintptr(0)>>32, closeRangeCloexec); e != 0 {
		return wrap("marking inherited files close-on-exec", e)
	}
	return nil
}

// readEnv reads the command's environment from the file descriptor fd
// (none when 0) and closes it.
func readEnv(fd int) ([]string, error) {
	if fd <= 0 {
		return nil, nil
	}
	defer syscall.Close(fd)
	var b []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Pread(fd, buf, int64(len(b)))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, wrap("reading the command's environment", err)
		}
		if n == 0 {
			break
		}
		b = append(b, buf[:n]...)
	}
	var env []string
	for len(b) > 0 {
		i := strings.IndexByte(string(b), 0)
		if i < 0 {
			i = len(b)
		}
		env = append(env, string(b[:i]))
		b = b[min(i+1, len(b)):]
	}
	return env, nil
}

// mapSelf writes a user's id maps: an unprivileged process may map its own
// uid and gid (and only those) into a user namespace it created. (Go's
// own mapping is written by the parent into the child's /proc/PID/uid_map,
// which a user cannot open once the harness has made itself undumpable:
// the child's /proc files belong to root until it executes the helper.)
func mapSelf(spec Spec) error {
	if spec.UID < 0 {
		return nil
	}
	for _, w := range []struct{ file, line string }{
		{"/proc/self/setgroups", "deny"}, // required before an unprivileged gid_map
		{"/proc/self/gid_map", strconv.Itoa(spec.GID) + " " + strconv.Itoa(spec.GID) + " 1"},
		{"/proc/self/uid_map", strconv.Itoa(spec.UID) + " " + strconv.Itoa(spec.UID) + " 1"},
	} {
		if err := os.WriteFile(w.file, []byte(w.line), 0); err != nil {
			return wrap("mapping ids in the user namespace", err)
		}
	}
	return nil
}

// mountProc mounts a new proc file system over /proc: the PID namespace
// it belongs to holds only the command, so the harness and every other
// process of the machine are not in it. (The mount does not propagate to
// the harness's mount namespace: a namespace created with a new user
// namespace receives the parent's shared mounts as slaves.)
func mountProc() error {
	return wrap("mounting a fresh /proc", syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""))
}

// grantProc lets the command read the fresh /proc, which holds only the
// command's processes, so ps, top and pgrep work. The rule must be added
// here: Landlock rules name inodes, and this proc file system did not
// exist when the harness built the ruleset (whose grants never name the
// harness's /proc below the root).
func grantProc(ruleset int) error {
	fd, err := syscall.Open("/proc", oPath|syscall.O_CLOEXEC|syscall.O_DIRECTORY, 0)
	if err != nil {
		return wrap("opening /proc", err)
	}
	defer syscall.Close(fd)
	return wrap("granting /proc", landlockAddPath(ruleset, fd, landlockRead))
}

// dropCapabilities leaves this thread (and what it executes) only keep:
// nothing for a user (its one capability, CAP_SYS_ADMIN in the new user
// namespace, was for the id maps and /proc); for root, the
// file-permission capabilities it had outside, so its commands can still
// write a workdir another user owns (Landlock still decides which paths).
func dropCapabilities(keep []uint) error {
	if err := prctl(prCapAmbient, prCapAmbientClearAll); err != nil {
		return wrap("clearing ambient capabilities", err)
	}
	var set [2]uint32
	for _, c := range keep {
		set[c/32] |= 1 << (c % 32)
	}
	if len(keep) > 0 {
		// Root regains its bounding set when it executes a program; cut the
		// set to keep first (this needs CAP_SETPCAP, which root has here).
		for c := uint(0); c <= capLastCap; c++ {
			if set[c/32]&(1<<(c%32)) != 0 {
				continue
			}
			if err := prctl(prCapbsetDrop, uintptr(c)); err != nil && err != syscall.EINVAL {
				return wrap("dropping capability "+strconv.Itoa(int(c)), err)
			}
		}
	}
	return wrap("dropping capabilities", capset(set, set))
}

// confineThread sets no_new_privs, enters the Landlock domain and
// installs the seccomp filter, on the calling thread only.
func confineThread(spec Spec) error {
	if err := prctl(prSetNoNewPrivs, 1); err != nil {
		return wrap("prctl(PR_SET_NO_NEW_PRIVS)", err)
	}
	if err := landlockRestrictSelf(spec.Ruleset, spec.Restrict); err != nil {
		return wrap("landlock_restrict_self", err)
	}
	syscall.Close(spec.Ruleset)
	return wrap("seccomp", seccomp(spec.Filter))
}

// setLimits applies the resource limits to this process, soft and hard:
// the command cannot raise them.
func setLimits(l Limits) error {
	procs := l.Processes
	if procs > 0 && l.Above {
		procs += RunningTasks()
	}
	for _, r := range []struct {
		res  int
		val  uint64
		name string
	}{
		{rlimitNproc, procs, "processes"},
		{syscall.RLIMIT_FSIZE, l.FileSize, "file size"},
		{syscall.RLIMIT_CPU, l.CPUSeconds, "CPU time"},
	} {
		if r.val == 0 {
			continue
		}
		var cur syscall.Rlimit
		if err := syscall.Getrlimit(r.res, &cur); err != nil {
			return wrap("reading the "+r.name+" limit", err)
		}
		v := min(r.val, cur.Max) // never above what the harness may have
		if err := syscall.Setrlimit(r.res, &syscall.Rlimit{Cur: v, Max: v}); err != nil {
			return wrap("setting the "+r.name+" limit", err)
		}
	}
	return nil
}

// MinPIDMax is the lowest pid_max the kernel accepts (RESERVED_PIDS+1).
const MinPIDMax = 301

// limitPIDs caps the PID namespace's PID numbers at the process limit, so
// the namespace cannot hold more tasks: RLIMIT_NPROC does not bind root
// (the kernel exempts uid 0 even in a user namespace), this does. Linux
// 6.14 and later have a pid_max per PID namespace, which its owner may
// lower (not below MinPIDMax); on older kernels the write fails and root's
// commands have no process limit.
func limitPIDs(n uint64) {
	if n == 0 {
		return
	}
	_ = os.WriteFile("/proc/sys/kernel/pid_max", []byte(strconv.FormatUint(max(n+1, MinPIDMax), 10)), 0)
}

// RunningTasks is the number of tasks (threads) the machine runs, from
// /proc/loadavg: without a user namespace, RLIMIT_NPROC counts every task
// of the user, and the user's are at most all of them.
func RunningTasks() uint64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 4 {
		return 0
	}
	_, total, _ := strings.Cut(f[3], "/")
	n, _ := strconv.ParseUint(total, 10, 64)
	return n
}
