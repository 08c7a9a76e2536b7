//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// A confined command is started through a helper: the program itself,
// re-executed from /proc/self/exe with helperArg0 as its name. The helper
// does what must happen inside the command's own process before the
// command runs and what Go's os/exec cannot do between fork and exec:
// mount a fresh /proc in the new namespaces, drop capabilities, set the
// resource limits, enter the Landlock domain and the seccomp filter; then
// it executes the command (with namespaces) or stays as the command's
// subreaper and ends every process the command leaves behind (without).
//
// The helper runs from this package's init function, before main and
// before the packages that import this one are initialised, so a program
// cannot forget to install it and test binaries run it too.
const helperArg0 = "harness9-sandbox-helper"

// Helper modes.
const (
	modeExec      = "exec"      // namespaces: set up, then become the command
	modeSupervise = "supervise" // no namespaces: fork the command, end its leftovers
	modeProbe     = "probe"     // namespaces: set up /proc and exit 0
)

// helperSpec tells the helper what to do; it is the helper's first
// argument, followed by the command's path and argv.
type helperSpec struct {
	Mode     string     `json:"mode"`
	Map      *idMap     `json:"map,omitempty"`      // a user's ids, mapped by the helper
	Ruleset  int        `json:"ruleset"`            // Landlock ruleset fd
	Restrict uint32     `json:"restrict,omitempty"` // landlock_restrict_self flags
	Proc     bool       `json:"proc,omitempty"`     // grant reading the fresh /proc
	Keep     []uintptr  `json:"keep,omitempty"`     // capabilities the command keeps (root)
	Filter   filterSpec `json:"filter"`
	Limits   rlimits    `json:"limits"`
}

// idMap is the one uid and gid a user's helper maps to themselves.
type idMap struct {
	UID int `json:"uid"`
	GID int `json:"gid"`
}

// mapSelf writes the helper's own id maps: an unprivileged process may map
// its own uid and gid (and only those) into a user namespace it created.
func mapSelf(m *idMap) error {
	if m == nil {
		return nil
	}
	for _, w := range []struct{ file, line string }{
		{"/proc/self/setgroups", "deny"}, // required before an unprivileged gid_map
		{"/proc/self/gid_map", fmt.Sprintf("%d %d 1", m.GID, m.GID)},
		{"/proc/self/uid_map", fmt.Sprintf("%d %d 1", m.UID, m.UID)},
	} {
		if err := os.WriteFile(w.file, []byte(w.line), 0); err != nil {
			return fmt.Errorf("mapping ids in the user namespace: %w", err)
		}
	}
	return nil
}

// rlimits are Limits as the kernel takes them.
type rlimits struct {
	Processes  uint64 `json:"processes,omitempty"`
	FileSize   uint64 `json:"file_size,omitempty"`
	CPUSeconds uint64 `json:"cpu_seconds,omitempty"`
	// Above counts Processes above the tasks the machine runs when the
	// command starts (no user namespace: RLIMIT_NPROC counts all the
	// user's tasks).
	Above bool `json:"above,omitempty"`
}

func init() {
	if len(os.Args) >= 2 && os.Args[0] == helperArg0 {
		os.Exit(helperMain(os.Args[1:]))
	}
}

// Exit statuses of a helper that could not run the command, as a shell
// reports them.
const (
	exitCannotRun = 126
	exitNotFound  = 127
)

func helperMain(args []string) int {
	var spec helperSpec
	if err := json.Unmarshal([]byte(args[0]), &spec); err != nil {
		return helperFail(fmt.Errorf("bad helper arguments: %w", err))
	}
	// Every per-thread attribute (capabilities, no_new_privs, Landlock,
	// seccomp) is set on this thread, which then executes or forks the
	// command.
	runtime.LockOSThread()
	var err error
	switch spec.Mode {
	case modeProbe:
		if err = mapSelf(spec.Map); err == nil {
			err = mountProc()
		}
	case modeExec:
		if len(args) < 3 {
			return helperFail(errors.New("no command"))
		}
		err = execConfined(spec, args[1], args[2:])
	case modeSupervise:
		if len(args) < 3 {
			return helperFail(errors.New("no command"))
		}
		return supervise(spec, args[1], args[2:])
	default:
		err = fmt.Errorf("unknown helper mode %q", spec.Mode)
	}
	if err != nil {
		return helperFail(err)
	}
	return 0
}

func helperFail(err error) int {
	fmt.Fprintf(os.Stderr, "harness9 sandbox: %v\n", err)
	if errors.Is(err, syscall.ENOENT) {
		return exitNotFound
	}
	return exitCannotRun
}

// execConfined runs in the command's new user, PID, mount, IPC (and
// network) namespaces: it mounts a /proc that shows only the command's
// processes, confines this thread and executes the command.
func execConfined(spec helperSpec, path string, argv []string) error {
	if err := mapSelf(spec.Map); err != nil {
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
	if err := confineThread(spec); err != nil {
		return err
	}
	if err := unix.Exec(path, argv, os.Environ()); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// mountProc mounts a new proc file system over /proc: the PID namespace
// it belongs to holds only the command, so the harness and every other
// process of the machine are not in it. (The mount does not propagate to
// the harness's mount namespace: a namespace created with a new user
// namespace receives the parent's shared mounts as slaves.)
func mountProc() error {
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting a fresh /proc: %w", err)
	}
	return nil
}

// grantProc lets the command read the fresh /proc, which holds only the
// command's processes, so ps, top and pgrep work. The rule must be added
// here: Landlock rules name inodes, and this proc file system did not
// exist when the harness built the ruleset (whose grants never name the
// harness's /proc below the root).
func grantProc(ruleset int) error {
	fd, err := unix.Open("/proc", unix.O_PATH|unix.O_CLOEXEC|unix.O_DIRECTORY, 0)
	if err != nil {
		return fmt.Errorf("opening /proc: %w", err)
	}
	defer unix.Close(fd)
	attr := ll.PathBeneathAttr{AllowedAccess: ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir, ParentFd: fd}
	if err := ll.LandlockAddPathBeneathRule(ruleset, &attr, 0); err != nil {
		return fmt.Errorf("granting /proc: %w", err)
	}
	return nil
}

// dropCapabilities leaves this thread (and what it executes) only keep:
// nothing for a user (its one capability, CAP_SYS_ADMIN in the new user
// namespace, was for mounting /proc); for root, the file-permission
// capabilities it had outside, so its commands can still write a workdir
// another user owns (Landlock still decides which paths).
func dropCapabilities(keep []uintptr) error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clearing ambient capabilities: %w", err)
	}
	var set [2]uint32
	for _, c := range keep {
		set[c/32] |= 1 << (c % 32)
	}
	if len(keep) > 0 {
		// Root regains its bounding set when it executes a program; cut the
		// set to keep first (this needs CAP_SETPCAP, which root has here).
		for c := uintptr(0); c <= unix.CAP_LAST_CAP; c++ {
			if set[c/32]&(1<<(c%32)) != 0 {
				continue
			}
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
				return fmt.Errorf("dropping capability %d: %w", c, err)
			}
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	data := [2]unix.CapUserData{
		{Effective: set[0], Permitted: set[0]},
		{Effective: set[1], Permitted: set[1]},
	}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("dropping capabilities: %w", err)
	}
	return nil
}

// confineThread sets no_new_privs, enters the Landlock domain and
// installs the seccomp filter, on the calling thread only.
func confineThread(spec helperSpec) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := ll.LandlockRestrictSelf(spec.Ruleset, spec.Restrict); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	unix.Close(spec.Ruleset)
	return installFilter(spec.Filter)
}

// setLimits applies the resource limits to this process, soft and hard:
// the command cannot raise them.
func setLimits(l rlimits) error {
	procs := l.Processes
	if procs > 0 && l.Above {
		procs += runningTasks()
	}
	for _, r := range []struct {
		res  int
		val  uint64
		name string
	}{
		{unix.RLIMIT_NPROC, procs, "processes"},
		{unix.RLIMIT_FSIZE, l.FileSize, "file size"},
		{unix.RLIMIT_CPU, l.CPUSeconds, "CPU time"},
	} {
		if r.val == 0 {
			continue
		}
		var cur unix.Rlimit
		if err := unix.Getrlimit(r.res, &cur); err != nil {
			return fmt.Errorf("reading the %s limit: %w", r.name, err)
		}
		v := min(r.val, cur.Max) // never above what the harness may have
		if err := unix.Setrlimit(r.res, &unix.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("setting the %s limit: %w", r.name, err)
		}
	}
	return nil
}

// limitPIDs caps the PID namespace's PID numbers at the process limit, so
// the namespace cannot hold more tasks: RLIMIT_NPROC does not bind root
// (the kernel exempts uid 0 even in a user namespace), this does. Linux
// 6.14 and later have a pid_max per PID namespace, which its owner may
// lower (not below 301); on older kernels the write fails and root's
// commands have no process limit.
func limitPIDs(n uint64) {
	if n == 0 {
		return
	}
	_ = os.WriteFile("/proc/sys/kernel/pid_max", []byte(fmt.Sprint(max(n+1, minPIDMax))), 0)
}

// minPIDMax is the lowest pid_max the kernel accepts (RESERVED_PIDS+1).
const minPIDMax = 301

// runningTasks is the number of tasks (threads) the machine runs, from
// /proc/loadavg: without a user namespace, RLIMIT_NPROC counts every task
// of the user, and the user's are at most all of them.
func runningTasks() uint64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 4 {
		return 0
	}
	_, total, ok := strings.Cut(f[3], "/")
	if !ok {
		return 0
	}
	var n uint64
	fmt.Sscan(total, &n)
	return n
}
