package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"

	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// newSandbox builds the kernel sandbox of c's workdir, or nil when the user
// turned it off. It denies what the workspace denies plus the data
// directory, reads the toolchains found on PATH, keeps a per-project build
// cache in the data directory, and hides the configured providers' key
// variables.
func newSandbox(c *config.Config, ws *tool.Workspace, getenv func(string) string) (*sandbox.Sandbox, error) {
	if c.Sandbox.Mode == config.SandboxOff {
		return nil, nil
	}
	home, _ := os.UserHomeDir()
	var keyVars []string
	for _, p := range c.Providers {
		keyVars = append(keyVars, p.APIKeyEnv)
	}
	return sandbox.New(ws.Root(),
		sandbox.WithDeny(ws.DenyList()...),
		sandbox.WithDeny(c.Home),
		sandbox.WithToolchains(home, getenv("PATH")),
		sandbox.WithReadPaths(goPaths(getenv)...),
		sandbox.WithReadPaths(c.Sandbox.Read...),
		sandbox.WithCacheDir(sandboxCacheDir(c)),
		sandbox.WithNetwork(c.Sandbox.Network),
		sandbox.WithKeepEnv(c.Sandbox.KeepEnv...),
		sandbox.WithHideEnv(keyVars...),
	)
}

// goPaths are Go's module cache and root when the environment moves them
// out of the places DetectToolchains knows.
func goPaths(getenv func(string) string) []string {
	var out []string
	for _, v := range []string{"GOROOT", "GOMODCACHE", "GOPATH"} {
		if p := getenv(v); p != "" && filepath.IsAbs(p) {
			out = append(out, p)
		}
	}
	return out
}

// sandboxCacheDir is the project's persistent build cache for confined
// commands: <data>/cache/sandbox/<hash of the workdir>. It is separate from
// the user's own caches, which unconfined builds trust.
func sandboxCacheDir(c *config.Config) string {
	sum := sha256.Sum256([]byte(c.Workdir))
	return filepath.Join(c.Home, "cache", "sandbox", hex.EncodeToString(sum[:8]))
}

// bashOptions configures bash for the sandbox (or its absence) and the
// Plan-Mode bash choice.
func bashOptions(c *config.Config, sb *sandbox.Sandbox, hide []string) []builtin.BashOption {
	opts := []builtin.BashOption{builtin.WithHiddenEnv(hide...)}
	if sb != nil {
		opts = append(opts, builtin.WithSandbox(sb))
	}
	if c.Sandbox.PlanBash == config.PlanBashGated {
		opts = append(opts, builtin.WithUnconfinedReadOnly(true))
	}
	return opts
}

// sandboxLabel is the status bar's word on the sandbox.
func sandboxLabel(rt *wiring) string {
	switch {
	case rt.sandbox == nil:
		return "SANDBOX OFF"
	case !rt.sandbox.Support().Available:
		return "NO SANDBOX"
	}
	return "sandboxed"
}
