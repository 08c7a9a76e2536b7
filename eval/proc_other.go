//go:build !unix

package eval

import (
	"os/exec"
	"syscall"
)

func newSession() *syscall.SysProcAttr { return nil }

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
