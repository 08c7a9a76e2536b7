//go:build !unix

package hook

import "os/exec"

// ownSession does nothing where there are no sessions; hooks do not run
// unconfined there unless [hooks] unconfined allows it (docs/hooks.md).
func ownSession(*exec.Cmd) {}

// killTree kills the hook's own process; what it started may outlive it.
func killTree(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
