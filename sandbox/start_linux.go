//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"

	"github.com/harness9/harness9/sandbox/internal/helper"
)

// selfExe starts the helper: the running program's own file, whatever has
// happened to its path since it started.
const selfExe = "/proc/self/exe"

// ProbeNamespaces reports whether confined commands get user, PID, mount,
// IPC and network namespaces of their own with a fresh /proc on this
// system, and if not, why. The kernel is asked once per process, by
// starting the helper in new namespaces: unprivileged user namespaces may
// be switched off (user.max_user_namespaces, AppArmor's
// apparmor_restrict_unprivileged_userns, a container's seccomp profile),
// and a fresh /proc may be refused where the existing one is partly
// hidden.
func ProbeNamespaces() (bool, string) { return probeNamespaces() }

var probeNamespaces = sync.OnceValues(func() (bool, string) {
	var stderr bytes.Buffer
	spec := helper.Spec{Mode: helper.ModeProbe}
	spec.UID, spec.GID = selfMap()
	cmd := exec.Command(selfExe)
	cmd.Args = []string{helper.Arg0, spec.Encode()}
	cmd.Env = []string{}
	cmd.SysProcAttr = namespaceAttr(false)
	cmd.Stderr = &stderr
	err := cmd.Run()
	switch {
	case err == nil:
		return true, ""
	case errors.Is(err, syscall.ENOSPC):
		return false, "the kernel refused new user namespaces for commands (user.max_user_namespaces is 0 here)"
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EACCES):
		return false, "the kernel refused new user namespaces for commands (unprivileged user namespaces are switched off: " +
			"kernel.unprivileged_userns_clone, AppArmor's apparmor_restrict_unprivileged_userns, or a container's seccomp profile)"
	}
	why := strings.TrimSpace(strings.TrimPrefix(stderr.String(), "harness9 sandbox: "))
	if why == "" {
		why = err.Error()
	}
	return false, "the kernel refused new user namespaces for commands (" + why + ")"
})

// config is the Landlock configuration of a policy: every filesystem right
// the kernel knows is handled (so what is not granted is denied), TCP bind
// and connect are handled unless the network is allowed, and signals and
// abstract UNIX sockets are scoped to the domain where the kernel can.
func (s *Sandbox) config(network bool) landlock.Config {
	cfg := landlock.V11.BestEffort()
	if network {
		cfg.HandledAccessNet = 0
	}
	return cfg
}

// rules turns grants into Landlock rules.
func rules(gs []grant) []landlock.Rule {
	out := make([]landlock.Rule, 0, len(gs))
	for _, g := range gs {
		var r landlock.FSRule
		switch {
		case g.dir && g.write:
			r = landlock.RWDirs(g.path).WithRefer()
		case g.dir:
			r = landlock.RODirs(g.path)
		case g.write:
			r = landlock.RWFiles(g.path)
		default:
			r = landlock.ROFiles(g.path)
		}
		out = append(out, r.IgnoreIfMissing())
	}
	return out
}

// start starts cmd confined by p, with the network or without, and with
// socket files or without, through the helper (internal/helper):
// the harness builds the Landlock ruleset and passes it to the helper as
// an inherited file; the harness itself enters nothing.
func (s *Sandbox) start(cmd *exec.Cmd, p Policy, scratch string, network, unixSockets bool, limits Limits) (Regime, error) {
	if cmd.Err != nil {
		return 0, cmd.Err
	}
	fd, flags, err := s.config(network).NewRulesetFD(rules(s.grants(p, scratch))...)
	if err != nil {
		return 0, fmt.Errorf("sandbox: building the Landlock ruleset: %w", err)
	}
	if fd < 0 {
		return 0, fmt.Errorf("sandbox: the kernel handles no Landlock access right: %w", ErrUnavailable)
	}
	ruleset := os.NewFile(uintptr(fd), "landlock-ruleset")
	defer ruleset.Close()

	regime := s.Regime()
	ns := regime == RegimeNamespaces
	spec := helper.Spec{
		Mode:     helper.ModeSupervise,
		Restrict: flags,
		UID:      -1,
		GID:      -1,
		// Without the network a command may still create AF_INET sockets
		// in a network namespace of its own, which has nothing to reach;
		// with it, socket files stay closed unless unixSockets.
		Filter: filterBytes(filterSpec{Metadata: p == ReadOnly, Sockets: !unixSockets, Inet: ns || network}),
		Limits: limits.rlimits(!ns),
	}
	if os.Geteuid() == 0 {
		spec.Keep = rootKeeps
	}
	if ns {
		spec.Mode = helper.ModeExec
		spec.Proc = true
		spec.UID, spec.GID = selfMap()
	}
	env, err := envFile(cmd.Env)
	if err != nil {
		return 0, err
	}
	defer env.Close()
	life, err := lifelineFile()
	if err != nil {
		return 0, err
	}
	// The caller's files keep their numbers (3 onwards); the helper's
	// come after them, and only the caller's reach the command.
	next := 3 + len(cmd.ExtraFiles)
	spec.Ruleset, spec.Env, spec.Lifeline = next, next+1, next+2
	cmd.ExtraFiles = append(cmd.ExtraFiles, ruleset, env, life)
	// The helper runs unconfined until it has confined the command: it
	// gets no environment of its own (a library for the dynamic loader to
	// preload, say); the command's travels in env.
	cmd.Env = []string{}
	cmd.Args = append([]string{helper.Arg0, spec.Encode(), cmd.Path}, cmd.Args...)
	cmd.Path = selfExe

	attr := cmd.SysProcAttr
	if attr == nil {
		attr = &syscall.SysProcAttr{}
	}
	if ns {
		n := namespaceAttr(network)
		attr.Cloneflags |= n.Cloneflags
		attr.UidMappings, attr.GidMappings, attr.AmbientCaps = n.UidMappings, n.GidMappings, n.AmbientCaps
	}
	// A session of its own: no controlling terminal to read the user's
	// keystrokes from, and one process group to kill.
	attr.Setsid = true
	attr.Setpgid = false
	cmd.SysProcAttr = attr
	if err := startTracked(cmd, !ns); err != nil {
		return 0, err
	}
	return regime, nil
}

// envFile is a file in memory holding env as the helper reads it
// (helper.Spec.Env): each entry followed by a NUL.
func envFile(env []string) (*os.File, error) {
	fd, err := unix.MemfdCreate("harness9-command-env", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("sandbox: a file for the command's environment: %w", err)
	}
	f := os.NewFile(uintptr(fd), "command-env")
	var b []byte
	for _, kv := range env {
		b = append(append(b, kv...), 0)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: writing the command's environment: %w", err)
	}
	return f, nil
}

// rootKeeps are the capabilities a command started by root keeps, in its
// user namespace or (without one) in the machine's: those of file
// permissions, so that root's commands can still write a workdir another
// user owns. Mounting, tracing, network administration and the rest are
// dropped.
var rootKeeps = []uint{unix.CAP_CHOWN, unix.CAP_DAC_OVERRIDE, unix.CAP_DAC_READ_SEARCH, unix.CAP_FOWNER, unix.CAP_FSETID}

// namespaceAttr creates the command's namespaces. Root's ids are all
// mapped to themselves, so files keep their owners. A user keeps its own
// uid and gid inside (files it creates are its own; `id` is unchanged);
// the helper maps them itself (selfMap) and gets CAP_SYS_ADMIN in the new
// user namespace, as an ambient capability, for that and to mount /proc.
// (Go's own mapping is written by the parent into the child's
// /proc/PID/uid_map, which a user cannot open once the harness has made
// itself undumpable, ProtectSelf: the child's /proc files belong to root
// until it executes the helper.)
func namespaceAttr(network bool) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{
		Setsid:     true,
		Cloneflags: unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNS | unix.CLONE_NEWIPC,
	}
	if !network {
		// Only a loopback device, down: nothing to reach.
		attr.Cloneflags |= unix.CLONE_NEWNET
	}
	if os.Geteuid() == 0 {
		attr.UidMappings = identityMap("/proc/self/uid_map")
		attr.GidMappings = identityMap("/proc/self/gid_map")
		return attr
	}
	attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
	return attr
}

// selfMap is the uid and gid a user's helper maps to themselves (Go writes
// root's mapping: -1, -1).
func selfMap() (uid, gid int) {
	uid, gid = os.Geteuid(), os.Getegid()
	if uid == 0 {
		return -1, -1
	}
	return uid, gid
}

// identityMap maps every id this process's user namespace knows to itself
// ("0 0 4294967295" on a machine's own root, fewer in a container).
func identityMap(file string) []syscall.SysProcIDMap {
	f, err := os.Open(file)
	if err != nil {
		return []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}}
	}
	defer f.Close()
	var out []syscall.SysProcIDMap
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var inside, outside, n int
		if _, err := fmt.Sscan(sc.Text(), &inside, &outside, &n); err == nil {
			out = append(out, syscall.SysProcIDMap{ContainerID: inside, HostID: inside, Size: n})
		}
	}
	return out
}

// rlimits converts l for the helper; above counts processes above the
// machine's current tasks (no user namespace of its own to count in).
func (l Limits) rlimits(above bool) helper.Limits {
	r := helper.Limits{Above: above}
	if l.Processes > 0 {
		r.Processes = uint64(l.Processes)
	}
	if l.FileSize > 0 {
		r.FileSize = uint64(l.FileSize)
	}
	if l.CPUTime > 0 {
		r.CPUSeconds = max(1, uint64((l.CPUTime+999_999_999)/1_000_000_000))
	}
	return r
}
