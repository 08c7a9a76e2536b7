//go:build unix

package sandbox

import (
	"os/exec"
	"syscall"
)

// startInSession starts cmd in a session of its own: no controlling
// terminal to read the user's keystrokes from, and one group to kill.
func startInSession(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	return cmd.Start()
}
