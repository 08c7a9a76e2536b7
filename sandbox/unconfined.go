package sandbox

import "os/exec"

// StartUnconfined starts cmd without the kernel sandbox, for a program that
// runs commands where the kernel cannot confine them (Support().Available
// is false) because its user chose to: Plan Mode's bash with plan_bash =
// "gated", or a command the user approved. Every layer that needs no
// kernel support still applies, as under Start: the policy's environment
// (secrets scrubbed; under ReadOnly a minimal environment with HOME in the
// scratch directory and git hardened, so a repository's core.fsmonitor or
// hooks do not run), a private scratch directory and TMPDIR, a session of
// its own that Cleanup kills, and under WorkspaceWrite the git guard. It
// promises nothing the kernel would have enforced: the command can read,
// write and connect to whatever its user can, and a process that leaves
// the session outlives the call.
func (s *Sandbox) StartUnconfined(cmd *exec.Cmd, p Policy, opts ...StartOption) (*Process, error) {
	return s.launch(cmd, p, opts, false)
}
