//go:build unix

package sandbox

import "syscall"

// killSession ends every process left in the command's session.
func killSession(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
