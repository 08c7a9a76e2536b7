//go:build unix

package eval

import (
	"os/exec"
	"syscall"
)

func newSession() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// killGroup kills the process group the command leads.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
