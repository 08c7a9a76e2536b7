//go:build !linux

package sandbox

import "os/exec"

func (s *Sandbox) start(*exec.Cmd, Policy, string, bool) (bool, error) { return false, ErrUnavailable }

// Namespaces reports whether confined commands get namespaces of their own:
// never on this system.
func Namespaces() bool { return false }
