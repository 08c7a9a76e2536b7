//go:build !linux

package sandbox

import (
	"os/exec"
	"runtime"
)

func (s *Sandbox) start(*exec.Cmd, Policy, string, bool, bool, Limits) (Regime, error) {
	return RegimeNone, ErrUnavailable
}

// ProbeNamespaces reports whether confined commands get namespaces of
// their own: never on this system.
func ProbeNamespaces() (bool, string) {
	return false, runtime.GOOS + " has no Linux namespaces"
}

func untrack(*exec.Cmd) {}
