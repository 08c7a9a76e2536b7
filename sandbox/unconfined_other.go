//go:build !unix

package sandbox

import "os/exec"

func startInSession(cmd *exec.Cmd) error { return cmd.Start() }
