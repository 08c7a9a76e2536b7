//go:build linux

package sandbox

import (
	"fmt"
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Namespaces reports whether confined commands also get PID and network
// namespaces of their own on this system: then nothing a command starts
// outlives it, and not even UDP leaves the machine. Without them the
// command's session is killed after the call and Landlock denies TCP only.
func Namespaces() bool { return namespaces() }

// namespaces reports, once per process, whether commands can start in new
// PID and network namespaces (it needs CAP_SYS_ADMIN, which root has).
var namespaces = sync.OnceValue(func() bool {
	truePath, err := exec.LookPath("true")
	if err != nil {
		return false
	}
	cmd := exec.Command(truePath)
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: unix.CLONE_NEWPID | unix.CLONE_NEWNET}
	return cmd.Run() == nil
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

// start starts cmd confined by p. The Landlock domain is entered by one OS
// thread only, locked to this goroutine and never unlocked (the Go runtime
// destroys such a thread when its goroutine ends), and the process forked
// from that thread inherits the domain; the harness itself stays
// unconfined. This is what a re-exec helper would achieve without paying a
// second process start for every command.
func (s *Sandbox) start(cmd *exec.Cmd, p Policy, scratch string, network bool) (pidns bool, err error) {
	fd, flags, err := s.config(network).NewRulesetFD(rules(s.grants(p, scratch))...)
	if err != nil {
		return false, fmt.Errorf("sandbox: building the Landlock ruleset: %w", err)
	}
	if fd < 0 {
		return false, fmt.Errorf("sandbox: the kernel handles no Landlock access right: %w", ErrUnavailable)
	}
	defer unix.Close(fd)

	attr := cmd.SysProcAttr
	if attr == nil {
		attr = &syscall.SysProcAttr{}
		cmd.SysProcAttr = attr
	}
	// A session of its own: no controlling terminal to read the user's
	// keystrokes from, and one process group to kill.
	attr.Setsid = true
	attr.Setpgid = false
	if namespaces() {
		// A PID namespace ends every process the command leaves behind when
		// the shell (its init) exits, whatever they did to escape the
		// process group; a network namespace has no interface but a
		// loopback that is down, so not even UDP gets out.
		attr.Cloneflags |= unix.CLONE_NEWPID
		if !network {
			attr.Cloneflags |= unix.CLONE_NEWNET
		}
		pidns = true
	}
	return pidns, startOnConfinedThread(cmd, fd, flags, p == ReadOnly, !network)
}

func startOnConfinedThread(cmd *exec.Cmd, fd int, flags uint32, metadata, unixSockets bool) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with this goroutine
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			errc <- fmt.Errorf("sandbox: prctl(PR_SET_NO_NEW_PRIVS): %w", err)
			return
		}
		if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
			errc <- fmt.Errorf("sandbox: landlock_restrict_self: %w", err)
			return
		}
		if err := installFilter(metadata, unixSockets); err != nil {
			errc <- err
			return
		}
		errc <- cmd.Start()
	}()
	return <-errc
}
