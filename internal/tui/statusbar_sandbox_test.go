package tui

import (
	"strings"
	"testing"
)

// The status bar tells when commands run outside the kernel sandbox.
func TestStatusBarSaysWhenTheSandboxIsOff(t *testing.T) {
	off := normalise(statusBar{model: "m", sandbox: "SANDBOX OFF"}.view(120))
	if !strings.Contains(off, "SANDBOX OFF") {
		t.Errorf("status bar without the sandbox: %q", off)
	}
	on := normalise(statusBar{model: "m", sandbox: "sandboxed", sandboxOK: true}.view(120))
	if !strings.Contains(on, "sandboxed") || strings.Contains(on, "OFF") {
		t.Errorf("status bar with the sandbox: %q", on)
	}
	// The warning is red, the enforced label is not.
	if raw := (statusBar{sandbox: "SANDBOX OFF"}).view(120); raw == (statusBar{sandbox: "SANDBOX OFF", sandboxOK: true}).view(120) {
		t.Error("an unconfined sandbox must look different from an enforced one")
	}
}
