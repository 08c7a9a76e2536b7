package harness

import (
	"context"
	"fmt"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/hook"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/permission"
	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/skill"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
	"github.com/harness9/harness9/tool/mcptool"
	"github.com/harness9/harness9/tool/web"
)

// NewWorkspace opens workdir as the agent's workspace, as New does: the
// home deny list (WithHome), the data directory (WithDataDir) and git's
// configuration (WithGitConfig) are refused to every file the agent
// opens, and WithWorkspaceOptions add to that.
func NewWorkspace(workdir string, opts ...Option) (*tool.Workspace, error) {
	return newWorkspace(workdir, configure(opts))
}

func newWorkspace(workdir string, c config) (*tool.Workspace, error) {
	wsOpts := []tool.WorkspaceOption{tool.WithHome(c.home), tool.WithDenied(c.dataDir), tool.WithGitConfig(c.gitConf...)}
	return tool.NewWorkspace(workdir, append(wsOpts, c.wsOpts...)...)
}

// NewSandbox builds the kernel sandbox of ws as New does, or nil with
// WithoutSandbox: it denies what ws denies and the data directory, knows
// the user's git configuration, scrubs the environment as the options
// say, and takes WithSandbox's options.
func NewSandbox(ws *tool.Workspace, opts ...Option) (*sandbox.Sandbox, error) {
	return newSandbox(ws, configure(opts))
}

func newSandbox(ws *tool.Workspace, c config) (*sandbox.Sandbox, error) {
	if c.noSandbox {
		return nil, nil
	}
	sbOpts := []sandbox.Option{
		sandbox.WithUserGitConfig(c.home, c.gitConf...),
		sandbox.WithDeny(ws.DenyList()...),
		sandbox.WithDeny(c.dataDir),
		sandbox.WithKeepEnv(c.keepEnv...),
		sandbox.WithHideEnv(c.hiddenEnv...),
	}
	return sandbox.New(ws.Root(), append(sbOpts, c.sandboxOpts...)...)
}

// ConnectMCP starts the servers WithMCP names as New does (stdio servers
// in sb with the network open, unless WithUnconfinedMCP names them or sb
// is nil or unavailable) and returns their manager, or nil when there are
// none. A server that fails to start is reported in the manager's Status,
// not as an error.
func ConnectMCP(ctx context.Context, sb *sandbox.Sandbox, opts ...Option) (*mcptool.Manager, error) {
	return connectMCP(ctx, sb, configure(opts))
}

func connectMCP(ctx context.Context, sb *sandbox.Sandbox, c config) (*mcptool.Manager, error) {
	if len(c.mcpServers) == 0 {
		return nil, nil
	}
	opts := append([]mcptool.Option{mcptool.WithBaseEnv(c.env), mcptool.WithHiddenEnv(c.hiddenEnv...)}, c.mcpOpts...)
	if sb != nil && sb.Support().Available {
		opts = append(opts, mcptool.WithStarter(mcpStarter(sb, c.mcpFree, c.notify)))
	}
	return mcptool.Connect(ctx, c.mcpServers, opts...)
}

// mcpStarter runs a stdio server in the WorkspaceWrite sandbox with the
// network open (a server exists to reach something; what it may read and
// write is still confined, and its environment is scrubbed), or as a
// plain process when the user marked it unconfined.
func mcpStarter(sb *sandbox.Sandbox, unconfined map[string]bool, notify func(string)) mcptool.Starter {
	return func(server string, cmd *exec.Cmd, env map[string]string) (func(), error) {
		if unconfined[server] {
			return nil, cmd.Start()
		}
		proc, err := sb.Start(cmd, sandbox.WorkspaceWrite, sandbox.WithNetworkAccess(), sandbox.WithEnv(env), sandbox.LongLived())
		if err != nil {
			return nil, fmt.Errorf("starting MCP server %s in the sandbox: %w", server, err)
		}
		return func() {
			if restored := proc.Cleanup(); len(restored) > 0 && notify != nil {
				notify(fmt.Sprintf("MCP server %s changed git configuration or hooks; restored: %s", server, strings.Join(restored, ", ")))
			}
		}, nil
	}
}

// builtinTools are the file tools and bash, configured for the sandbox
// (or its absence) and the environment.
func builtinTools(ws *tool.Workspace, sb *sandbox.Sandbox, c config) []tool.Tool {
	opts := []builtin.BashOption{builtin.WithBaseEnv(c.env), builtin.WithHiddenEnv(c.hiddenEnv...)}
	if sb != nil {
		opts = append(opts, builtin.WithSandbox(sb))
	}
	if c.gatedPlanSh {
		opts = append(opts, builtin.WithUnconfinedReadOnly(true))
	}
	return builtin.All(ws, opts...)
}

// webTools are web_fetch and web_search as the options ask for them.
func webTools(p llm.Provider, c config) []tool.Tool {
	var tools []tool.Tool
	if c.fetch {
		opts := []web.Option{web.WithPrivateHosts(domainAllowed(c.perms)), web.WithSummarizer(web.ModelSummarizer(p, c.model))}
		tools = append(tools, web.NewFetch(append(opts, c.fetchOpts...)...))
	}
	if c.search != nil {
		tools = append(tools, web.NewSearch(c.search))
	}
	return tools
}

// domainAllowed reports whether an allow rule names host's domain
// (web_fetch(domain:…), from the user's config, --allow or an "always
// allow" answer; a project's config cannot add allow rules): the user has
// said that host may be fetched, so it may be on a private network. A rule
// without a domain (plain web_fetch) does not lift the refusal, and a deny
// or ask rule for the host wins as it does for the call.
func domainAllowed(perms *permission.Rules) func(host string) bool {
	return func(host string) bool {
		if perms == nil || host == "" {
			return false
		}
		u := url.URL{Scheme: "http", Host: host}
		d := perms.Decide(permission.Call{Tool: web.FetchName, URL: u.String()}, permission.None)
		if d.Action != permission.Allow || len(d.Rules) == 0 {
			return false
		}
		for _, r := range d.Rules {
			if !strings.HasPrefix(r.Specifier, "domain:") {
				return false
			}
		}
		return true
	}
}

// newHooks is the runner of the hooks WithHooks gives, or nil for none.
func newHooks(ws *tool.Workspace, sb *sandbox.Sandbox, c config) (*hook.Runner, error) {
	if len(c.hooks) == 0 {
		return nil, nil
	}
	opts := []hook.Option{hook.WithEnv(c.env), hook.WithHiddenEnv(c.hiddenEnv...), hook.WithKeepEnv(c.keepEnv...)}
	if sb != nil {
		opts = append(opts, hook.WithSandbox(sb))
	}
	return hook.New(ws.Root(), c.hooks, append(opts, c.hookOpts...)...)
}

// systemPrompt is the default prompt, where the agent works and when,
// the project's instructions (AGENTS.md, or CLAUDE.md/GEMINI.md), the
// user's (<data dir>/AGENTS.md) and the skills' index.
func systemPrompt(ws *tool.Workspace, dataDir string, skills []skill.Skill, now time.Time) string {
	parts := []string{agent.DefaultSystemPrompt,
		fmt.Sprintf("The working directory is %s. Today is %s.", ws.Root(), now.Format("2006-01-02"))}
	if name, md := skill.LoadMemory(ws, skill.DefaultAgentsMax); md != "" {
		parts = append(parts, fmt.Sprintf("# Project instructions (%s)\n\n%s", name, md))
	}
	if md := skill.LoadUserAgentsMD(dataDir, skill.DefaultAgentsMax); md != "" {
		parts = append(parts, "# Your instructions (all projects, "+filepath.Join(dataDir, skill.AgentsFile)+")\n\n"+md)
	}
	if idx := skill.Index(skills); idx != "" {
		parts = append(parts, idx)
	}
	return strings.Join(parts, "\n\n")
}
