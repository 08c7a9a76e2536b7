//go:build !linux

package sandbox

import "os/exec"

func (s *Sandbox) start(*exec.Cmd, Policy, string) (bool, error) { return false, ErrUnavailable }
