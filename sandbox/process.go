package sandbox

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/harness9/harness9/internal/lib/gitguard"
)

// StartOption changes how one command is started.
type StartOption func(*startOptions)

type startOptions struct {
	network   bool
	env       map[string]string
	longLived bool
	limits    *Limits
}

// WithEnv sets variables in the command's environment after the policy has
// built it, so they survive the secret scrubbing: the credentials a user
// configured for one helper (an MCP server's API token) reach that helper
// and nothing else.
func WithEnv(env map[string]string) StartOption {
	return func(o *startOptions) { o.env = env }
}

// WithNetworkAccess lets this WorkspaceWrite command use the network
// whatever the sandbox's own setting: for long-lived helpers the user
// configured (an MCP server that calls an API), never for the model's
// commands. It has no effect under ReadOnly.
func WithNetworkAccess() StartOption {
	return func(o *startOptions) { o.network = true }
}

// Process is a command started by Start. Call Cleanup once the command has
// been waited for.
type Process struct {
	cmd     *exec.Cmd
	scratch string
	git     *gitGuard // WorkspaceWrite: git state restored by Cleanup
	// Regime is how the command is confined.
	Regime Regime
	// PIDNamespace is true when the command runs in a PID namespace of its
	// own, so that its exit ends every process it started.
	PIDNamespace bool
}

// Start starts cmd confined by p. It replaces cmd.Env with the policy's
// environment built from cmd.Env (or the process environment when nil):
// secrets scrubbed, a private TMPDIR, and under ReadOnly a minimal
// environment with HOME in the scratch directory and git hardened. It sets
// cmd.SysProcAttr's session and namespace fields. It returns ErrUnavailable
// (wrapped) when the kernel cannot confine the command; the caller decides
// whether to run it unconfined.
func (s *Sandbox) Start(cmd *exec.Cmd, p Policy, opts ...StartOption) (*Process, error) {
	if !s.support.Available {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, s.support.Reason)
	}
	return s.launch(cmd, p, opts, true)
}

// launch starts cmd with the policy's environment, scratch directory and
// git guard, confined by the kernel when kernel is set (Start), in a
// session of its own otherwise (StartUnconfined).
func (s *Sandbox) launch(cmd *exec.Cmd, p Policy, opts []StartOption, kernel bool) (*Process, error) {
	var so startOptions
	for _, o := range opts {
		o(&so)
	}
	if p != ReadOnly && p != WorkspaceWrite {
		return nil, fmt.Errorf("sandbox: unknown policy %v", p)
	}
	scratch, err := os.MkdirTemp("", "harness9-sandbox-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: creating the scratch directory: %w", err)
	}
	if scratch, err = filepath.EvalSymlinks(scratch); err != nil {
		return nil, fmt.Errorf("sandbox: scratch directory: %w", err)
	}
	for _, d := range []string{"tmp", "home", "cache"} {
		if err := os.Mkdir(filepath.Join(scratch, d), 0o700); err != nil {
			os.RemoveAll(scratch)
			return nil, fmt.Errorf("sandbox: creating the scratch directory: %w", err)
		}
	}
	cmd.Env = s.policyEnv(BaseEnv(cmd.Env), p, scratch)
	if p == ReadOnly && !kernel {
		// Nothing confines what git runs: no driver the repository names.
		cmd.Env = hardenGit(cmd.Env, driverOverrides(gitguard.Drivers(s.workdir, s.gitOpt)))
	}
	for _, k := range slices.Sorted(maps.Keys(so.env)) {
		cmd.Env = setEnv(cmd.Env, k, so.env[k])
	}
	if cmd.Dir == "" {
		cmd.Dir = s.workdir
	}
	var git *gitGuard
	if p == WorkspaceWrite {
		git = s.guardGit(so.longLived)
	}
	limits := s.limits
	if so.longLived {
		// CPU time is meant for one command, not a server's session.
		limits.CPUTime = 0
	}
	if so.limits != nil {
		limits = *so.limits
	}
	regime := RegimeNone
	if kernel {
		// A command given the network by the program (WithNetworkAccess: an
		// MCP server) gets the network only; socket files (the user's D-Bus
		// and systemd, a container daemon) open with the sandbox's own
		// network setting, which the user chose.
		network := p == WorkspaceWrite && (s.network || so.network)
		regime, err = s.start(cmd, p, scratch, network, network && s.network, limits)
	} else {
		err = startInSession(cmd)
	}
	if err != nil {
		os.RemoveAll(scratch)
		git.restore() // nothing ran; lets go of the record
		return nil, err
	}
	return &Process{cmd: cmd, scratch: scratch, git: git, Regime: regime, PIDNamespace: regime == RegimeNamespaces}, nil
}

// Cleanup kills whatever the command left running, deletes its scratch
// directory and, under WorkspaceWrite, undoes what the command changed in
// git's configuration, hooks and repository pointers and was not allowed
// to (git runs them unconfined later; see WithUserGitConfig). It returns
// what it undid: paths relative to the workdir, each with what was done.
// Call it after the command has been waited for. In a PID namespace the
// kernel has already ended every process when the command exited; without
// one the helper has killed every descendant of the command, and Cleanup
// kills the command's session and whatever orphans of a helper that died
// the harness was given.
func (p *Process) Cleanup() (restored []string) {
	if p.cmd.Process != nil {
		killSession(p.cmd.Process.Pid)
		untrack(p.cmd)
	}
	_ = os.RemoveAll(p.scratch)
	return p.git.restore()
}

// Scratch returns the call's private scratch directory.
func (p *Process) Scratch() string { return p.scratch }
