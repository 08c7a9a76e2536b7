//go:build unix

package hook

import (
	"os/exec"
	"syscall"
)

// ownSession starts cmd in a session of its own: no terminal to read, and
// the whole session can be killed.
func ownSession(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// killTree kills the process group cmd leads: the hook and whatever it started.
func killTree(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
