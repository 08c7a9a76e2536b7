//go:build !unix

package mcptool

import "os/exec"

// ownProcessGroup is a no-op where process groups are not available; the
// server process itself is still killed on cancellation.
func ownProcessGroup(*exec.Cmd) {}
