package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"

	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/internal/lib/gitguard"
	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/mcptool"
)

// environment is what the program knows of its user, as the assembled
// agent's options: the home directory (its deny list), the data directory,
// git's configuration files, the environment children start from
// (scrubbed, with the providers' keys and the store's URL hidden), and the
// kernel sandbox of c's settings (off when the user turned it off), which
// reads the toolchains found on PATH and keeps a per-project build cache in
// the data directory. The workspace, the sandbox and MCP servers are built
// from these alone wherever the CLI builds them.
func environment(c *config.Config, getenv func(string) string) []harness.Option {
	home, _ := os.UserHomeDir() // none: nothing there to protect
	git := gitguard.UserConfig(getenv, home)
	opts := []harness.Option{
		harness.WithHome(home),
		harness.WithDataDir(c.Home),
		harness.WithGitConfig(git.Global...),
		// Commands see the user's environment, scrubbed (the library
		// passes none on unless told).
		harness.WithEnv(os.Environ()),
		harness.WithHiddenEnv(hiddenEnv(c)...),
		harness.WithKeepEnv(c.Sandbox.KeepEnv...),
		harness.WithUnconfinedMCP(unconfinedMCP(c)...),
	}
	if c.Sandbox.Mode == config.SandboxOff {
		return append(opts, harness.WithoutSandbox())
	}
	return append(opts, harness.WithSandbox(
		sandbox.WithToolchains(home, getenv("PATH")),
		sandbox.WithReadPaths(goPaths(getenv)...),
		sandbox.WithReadPaths(c.Sandbox.Read...),
		sandbox.WithCacheDir(sandboxCacheDir(c)),
		sandbox.WithNetwork(c.Sandbox.Network),
		sandbox.WithLimits(c.Sandbox.Limits),
	))
}

// unconfinedMCP are the servers the user's config.toml marks unconfined.
func unconfinedMCP(c *config.Config) []string {
	var names []string
	for name, s := range c.MCPServers {
		if s.Unconfined {
			names = append(names, name)
		}
	}
	return names
}

// newSandbox builds the kernel sandbox of c's workdir as a session has it,
// or nil when the user turned it off.
func newSandbox(c *config.Config, ws *tool.Workspace, getenv func(string) string) (*sandbox.Sandbox, error) {
	return harness.NewSandbox(ws, environment(c, getenv)...)
}

// hiddenEnv names the variables no child process gets although their names
// do not look secret: the providers' key variables and the session store's
// URL, which may carry the database's password.
func hiddenEnv(c *config.Config) []string {
	names := append([]string{config.EnvStore}, config.CloudSecrets...)
	for _, p := range c.Providers {
		names = append(names, p.APIKeyEnv)
	}
	return append(names, c.Web.SearchAPIKeyEnv)
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

// sandboxState names how commands are confined, for telemetry.
func sandboxState(rt *wiring) string {
	switch {
	case rt.sandbox == nil:
		return "off"
	case !rt.sandbox.Support().Available:
		return "unavailable"
	}
	return "landlock"
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

// mcpOptions are the options the CLI adds to every MCP connection: the
// user's read-only declarations and the store of OAuth logins
// (<data>/mcp-auth). The harness offers the workdir as their root.
func mcpOptions(c *config.Config) []mcptool.Option {
	return append(mcpReadOnly(c), mcptool.WithTokenStore(mcpTokens(c)))
}

// projectWorkspace opens dir as the workspace of c's model: the file tools,
// skills, commands, sub-agent definitions and AGENTS.md all read through it.
func projectWorkspace(c *config.Config, dir string, opts ...tool.WorkspaceOption) (*tool.Workspace, error) {
	return harness.NewWorkspace(dir, append(environment(c, os.Getenv), harness.WithWorkspaceOptions(opts...))...)
}
