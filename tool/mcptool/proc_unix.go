//go:build unix

package mcptool

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts the server in its own process group and makes
// cancellation kill the whole group, so a launcher (npx, uvx, a shell
// script) does not leave its child server running.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
