package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/internal/gitguard"
	"github.com/harness9/harness9/internal/memory"
	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
	"github.com/harness9/harness9/tool/mcptool"
)

// newSandbox builds the kernel sandbox of c's workdir, or nil when the user
// turned it off. It denies what the workspace denies plus the data
// directory, reads the toolchains found on PATH, keeps a per-project build
// cache in the data directory, and hides hiddenEnv's variables.
func newSandbox(c *config.Config, ws *tool.Workspace, getenv func(string) string) (*sandbox.Sandbox, error) {
	if c.Sandbox.Mode == config.SandboxOff {
		return nil, nil
	}
	home, _ := os.UserHomeDir()
	git := gitguard.UserConfig(getenv, home)
	return sandbox.New(ws.Root(),
		sandbox.WithUserGitConfig(git.Home, git.Global...),
		sandbox.WithDeny(ws.DenyList()...),
		sandbox.WithDeny(c.Home),
		sandbox.WithToolchains(home, getenv("PATH")),
		sandbox.WithReadPaths(goPaths(getenv)...),
		sandbox.WithReadPaths(c.Sandbox.Read...),
		sandbox.WithCacheDir(sandboxCacheDir(c)),
		sandbox.WithNetwork(c.Sandbox.Network),
		sandbox.WithKeepEnv(c.Sandbox.KeepEnv...),
		sandbox.WithHideEnv(hiddenEnv(c)...),
		sandbox.WithLimits(c.Sandbox.Limits),
	)
}

// hiddenEnv names the variables no child process gets although their names
// do not look secret: the providers' key variables and the session store's
// URL, which may carry the database's password.
func hiddenEnv(c *config.Config) []string {
	names := []string{config.EnvStore}
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

// bashOptions configures bash for the sandbox (or its absence) and the
// Plan-Mode bash choice.
func bashOptions(c *config.Config, sb *sandbox.Sandbox, hide []string) []builtin.BashOption {
	// Commands see the user's environment, scrubbed (the library passes
	// none on unless told).
	opts := []builtin.BashOption{builtin.WithBaseEnv(os.Environ()), builtin.WithHiddenEnv(hide...)}
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

// mcpOptions are the options every MCP connection uses: the user's
// read-only declarations, and a starter that runs stdio servers in the
// WorkspaceWrite sandbox with the network open (a server exists to reach
// something; what it may read and write is still confined, and its
// environment is scrubbed). A server the user's config marks unconfined,
// or any server when the sandbox is off or unavailable, starts as a plain
// process.
func mcpOptions(c *config.Config, sb *sandbox.Sandbox, warn func(string)) []mcptool.Option {
	opts := append(mcpReadOnly(c), mcptool.WithBaseEnv(os.Environ()), mcptool.WithHiddenEnv(hiddenEnv(c)...),
		mcptool.WithTokenStore(mcpTokens(c)), mcptool.WithRoots(c.Workdir))
	if sb == nil || !sb.Support().Available {
		return opts
	}
	start := func(server string, cmd *exec.Cmd, env map[string]string) (func(), error) {
		if s, ok := c.MCPServers[server]; ok && s.Unconfined {
			return nil, cmd.Start()
		}
		proc, err := sb.Start(cmd, sandbox.WorkspaceWrite, sandbox.WithNetworkAccess(), sandbox.WithEnv(env), sandbox.LongLived())
		if err != nil {
			return nil, fmt.Errorf("starting MCP server %s in the sandbox: %w", server, err)
		}
		return func() {
			if restored := proc.Cleanup(); len(restored) > 0 && warn != nil {
				warn(fmt.Sprintf("MCP server %s changed git configuration or hooks; restored: %s", server, strings.Join(restored, ", ")))
			}
		}, nil
	}
	return append(opts, mcptool.WithStarter(start))
}

// projectWorkspace opens dir as the workspace of c's model: the file tools,
// skills, commands, sub-agent definitions and AGENTS.md all read through it.
func projectWorkspace(c *config.Config, dir string, opts ...tool.WorkspaceOption) (*tool.Workspace, error) {
	return memory.ProjectWorkspace(dir, c.Home, opts...)
}
