package config

import (
	"fmt"
	"path/filepath"
)

// Sandbox modes (`[sandbox] mode`, `--sandbox`).
const (
	SandboxAuto = "auto" // confine commands with the kernel sandbox where it exists
	SandboxOff  = "off"  // never confine (shown in red in the TUI)
)

// Plan-Mode bash choices (`[sandbox] plan_bash`).
const (
	PlanBashSandboxed = "sandboxed" // bash while planning only inside the kernel sandbox
	PlanBashGated     = "gated"     // without the sandbox, fall back to the parse gate alone
)

// SandboxConfig is the `[sandbox]` and `[env]` configuration.
type SandboxConfig struct {
	Mode     string   // SandboxAuto or SandboxOff
	Network  bool     // workspace-write commands may use the network
	Read     []string // extra read-only paths for confined commands
	PlanBash string   // PlanBashSandboxed or PlanBashGated
	KeepEnv  []string // variables kept although their names look secret
}

type sandboxFile struct {
	Mode     string   `toml:"mode"`
	Network  bool     `toml:"network"`
	Read     []string `toml:"read"`
	PlanBash string   `toml:"plan_bash"`
}

type envFile struct {
	Keep []string `toml:"keep"`
}

func defaultSandbox() SandboxConfig {
	return SandboxConfig{Mode: SandboxAuto, PlanBash: PlanBashSandboxed}
}

func (c *Config) applySandbox(s sandboxFile, e envFile, bad func(key, format string, args ...any) error) error {
	if s.Mode != "" {
		if err := checkSandboxMode(s.Mode); err != nil {
			return bad("sandbox.mode", "%v", err)
		}
		c.Sandbox.Mode = s.Mode
	}
	switch s.PlanBash {
	case "":
	case PlanBashSandboxed, PlanBashGated:
		c.Sandbox.PlanBash = s.PlanBash
	default:
		return bad("sandbox.plan_bash", "%q is not %q or %q", s.PlanBash, PlanBashSandboxed, PlanBashGated)
	}
	c.Sandbox.Network = s.Network
	for _, p := range s.Read {
		if !filepath.IsAbs(p) {
			return bad("sandbox.read", "%q is not an absolute path", p)
		}
	}
	c.Sandbox.Read = s.Read
	c.Sandbox.KeepEnv = e.Keep
	return nil
}

func checkSandboxMode(m string) error {
	if m != SandboxAuto && m != SandboxOff {
		return fmt.Errorf("%q is not %q or %q", m, SandboxAuto, SandboxOff)
	}
	return nil
}
