package config

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/harness9/harness9/sandbox"
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
	// Limits bound each confined command's processes, file size and CPU
	// time (max_processes, max_file_mb, max_cpu); sandbox.DefaultLimits
	// unless configured, a zero field no limit.
	Limits sandbox.Limits
}

type sandboxFile struct {
	Mode         string   `toml:"mode"`
	Network      bool     `toml:"network"`
	Read         []string `toml:"read"`
	PlanBash     string   `toml:"plan_bash"`
	MaxProcesses *int     `toml:"max_processes"`
	MaxFileMB    *int64   `toml:"max_file_mb"`
	MaxCPU       *string  `toml:"max_cpu"`
}

type envFile struct {
	Keep []string `toml:"keep"`
}

func defaultSandbox() SandboxConfig {
	return SandboxConfig{Mode: SandboxAuto, PlanBash: PlanBashSandboxed, Limits: sandbox.DefaultLimits()}
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
	return c.applyLimits(s, bad)
}

// applyLimits reads the resource limits; 0 means no limit of that kind.
func (c *Config) applyLimits(s sandboxFile, bad func(key, format string, args ...any) error) error {
	l := &c.Sandbox.Limits
	if s.MaxProcesses != nil {
		if *s.MaxProcesses < 0 {
			return bad("sandbox.max_processes", "must not be negative (0 is no limit)")
		}
		l.Processes = *s.MaxProcesses
	}
	if s.MaxFileMB != nil {
		if *s.MaxFileMB < 0 {
			return bad("sandbox.max_file_mb", "must not be negative (0 is no limit)")
		}
		l.FileSize = *s.MaxFileMB << 20
	}
	if s.MaxCPU != nil {
		d, err := time.ParseDuration(*s.MaxCPU)
		if err != nil || d < 0 {
			return bad("sandbox.max_cpu", "%q is not a duration like \"30m\" or \"2h\" (\"0\" is no limit)", *s.MaxCPU)
		}
		l.CPUTime = d
	}
	return nil
}

func checkSandboxMode(m string) error {
	if m != SandboxAuto && m != SandboxOff {
		return fmt.Errorf("%q is not %q or %q", m, SandboxAuto, SandboxOff)
	}
	return nil
}
