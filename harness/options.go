package harness

import (
	"log/slog"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/hook"
	"github.com/harness9/harness9/permission"
	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/mcptool"
	"github.com/harness9/harness9/tool/web"
)

// Option configures an assembled agent (New) and the parts that can be
// built alone with the same options (NewWorkspace, NewSandbox, ConnectMCP).
type Option func(*config)

type config struct {
	model   string
	home    string   // the user's home: anchors the deny list
	dataDir string   // plan files, the user's skills, agents and AGENTS.md; denied to the model
	gitConf []string // the user's git configuration files
	wsOpts  []tool.WorkspaceOption

	env, hiddenEnv, keepEnv []string

	noSandbox    bool
	sandboxOpts  []sandbox.Option
	gatedPlanSh  bool // Plan-Mode bash by the parse gate alone where the kernel cannot confine it
	fetch        bool
	fetchOpts    []web.Option
	search       web.Searcher
	mcpServers   map[string]mcptool.ServerConfig
	mcpOpts      []mcptool.Option
	mcpFree      map[string]bool // MCP servers started unconfined
	hooks        []hook.Hook
	hookOpts     []hook.Option
	noCompaction bool
	compactOpts  []compact.Option
	perms        *permission.Rules
	savePerms    func(rules []string) error
	store        session.Store
	logger       *slog.Logger
	notify       func(msg string)
	tools        []tool.Tool
	engineOpts   []agent.Option
}

func configure(opts []Option) config {
	c := config{mcpFree: map[string]bool{}}
	for _, o := range opts {
		o(&c)
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// WithModel names the model the provider is asked for (without a
// "provider/" prefix): the engines', the compactor's and web_fetch's
// summaries.
func WithModel(name string) Option { return func(c *config) { c.model = name } }

// WithHome gives the user's home directory: the workspace and the sandbox
// refuse what it holds that the model must never read (~/.ssh, ~/.aws,
// ~/.gnupg …, tool.WithHome) even when the workdir contains it, and "~/"
// in git configuration paths expands to it. Without it there is no home
// deny list; the library never looks the home directory up itself.
func WithHome(dir string) Option { return func(c *config) { c.home = dir } }

// WithDataDir gives the program's data directory (harness9's CLI passes
// $HARNESS9_HOME, ~/.harness9 by default). Plan files and task
// directories land there when the workdir is not a git repository; the
// user's own skills (<dir>/skills), sub-agents (<dir>/agents) and
// instructions (<dir>/AGENTS.md) are read from it; and the model's tools
// and commands never open it. Without it nothing of the user's is read
// and the engine writes no plan file.
func WithDataDir(dir string) Option { return func(c *config) { c.dataDir = dir } }

// WithGitConfig names the user's git configuration files (~/.gitconfig,
// ~/.config/git/config, /etc/gitconfig, or what GIT_CONFIG_GLOBAL and
// GIT_CONFIG_SYSTEM say): a core.hooksPath or include they set that leads
// into the workdir is protected like .git itself, by the file tools and
// the sandbox alike.
func WithGitConfig(files ...string) Option {
	return func(c *config) { c.gitConf = append(c.gitConf, files...) }
}

// WithWorkspaceOptions adds options to the workspace the file tools,
// skills, sub-agent definitions and AGENTS.md are read through (an
// editor's buffers: tool.WithEditor).
func WithWorkspaceOptions(opts ...tool.WorkspaceOption) Option {
	return func(c *config) { c.wsOpts = append(c.wsOpts, opts...) }
}

// WithEnv gives the environment every process the agent starts (bash,
// hooks, MCP servers) begins from, scrubbed of names that look secret
// (sandbox.IsSecretName) and of WithHiddenEnv's. Without it they start
// from PATH alone.
func WithEnv(env []string) Option { return func(c *config) { c.env = env } }

// WithHiddenEnv names variables no child process gets although their
// names do not look secret (a provider's key variable, a database URL).
func WithHiddenEnv(names ...string) Option {
	return func(c *config) { c.hiddenEnv = append(c.hiddenEnv, names...) }
}

// WithKeepEnv names variables child processes keep although their names
// look secret.
func WithKeepEnv(names ...string) Option {
	return func(c *config) { c.keepEnv = append(c.keepEnv, names...) }
}

// WithSandbox adds options to the kernel sandbox every command runs in
// (on by default): the toolchains to read (sandbox.WithToolchains), more
// read paths, a build cache, the network. The builder itself denies what
// the workspace denies and the data directory, and passes the
// environment options on.
func WithSandbox(opts ...sandbox.Option) Option {
	return func(c *config) { c.sandboxOpts = append(c.sandboxOpts, opts...) }
}

// WithoutSandbox runs commands without the kernel sandbox: bash is asked
// about before each call outside Plan Mode and withheld in it, hooks do
// not run unless unconfined hooks are allowed (hook.WithUnconfined), MCP
// servers start as plain processes.
func WithoutSandbox() Option { return func(c *config) { c.noSandbox = true } }

// WithGatedPlanBash lets Plan Mode's bash run where the kernel sandbox is
// unavailable, checked by the parse gate alone (builtin.WithUnconfinedReadOnly).
func WithGatedPlanBash(on bool) Option { return func(c *config) { c.gatedPlanSh = on } }

// WithWebFetch adds web_fetch. The builder lets it summarise long pages
// with the agent's model and fetch a private host an allow rule names by
// domain (web_fetch(domain:…)); opts come after and may say otherwise.
func WithWebFetch(opts ...web.Option) Option {
	return func(c *config) { c.fetch = true; c.fetchOpts = append(c.fetchOpts, opts...) }
}

// WithWebSearch adds web_search on s (web.NewBrave, web.NewAnthropic).
func WithWebSearch(s web.Searcher) Option { return func(c *config) { c.search = s } }

// WithMCP adds MCP servers (merged with earlier ones; a later server of
// the same name wins) and options for their connection (read-only tools,
// timeouts). Stdio servers start in the sandbox with the network open and
// a scrubbed environment.
func WithMCP(servers map[string]mcptool.ServerConfig, opts ...mcptool.Option) Option {
	return func(c *config) {
		if c.mcpServers == nil && len(servers) > 0 {
			c.mcpServers = map[string]mcptool.ServerConfig{}
		}
		for name, s := range servers {
			c.mcpServers[name] = s
		}
		c.mcpOpts = append(c.mcpOpts, opts...)
	}
}

// WithUnconfinedMCP names MCP servers that start as plain processes, not
// in the sandbox (the user's choice for a server that needs more).
func WithUnconfinedMCP(names ...string) Option {
	return func(c *config) {
		for _, n := range names {
			c.mcpFree[n] = true
		}
	}
}

// WithHooks runs the user's hooks at the engine's seams (hook.New), in the
// sandbox under the mode's policy, with the environment options; opts add
// to that (hook.WithUnconfined).
func WithHooks(hooks []hook.Hook, opts ...hook.Option) Option {
	return func(c *config) {
		c.hooks = append(c.hooks, hooks...)
		c.hookOpts = append(c.hookOpts, opts...)
	}
}

// WithCompaction configures the compactor (on by default, with
// compact's defaults): the older history is summarised when the context
// passes the threshold.
func WithCompaction(opts ...compact.Option) Option {
	return func(c *config) { c.compactOpts = append(c.compactOpts, opts...) }
}

// WithoutCompaction turns automatic compaction off.
func WithoutCompaction() Option { return func(c *config) { c.noCompaction = true } }

// WithPermissions gives the permission rules every engine decides calls
// by; save, when not nil, keeps an "always allow for this project" answer
// (agent.WithPermissionStore).
func WithPermissions(rules *permission.Rules, save func(rules []string) error) Option {
	return func(c *config) { c.perms, c.savePerms = rules, save }
}

// WithStore keeps sessions in s (session/sqlite, session/postgres); the
// caller closes it after the agent. Without it sessions live in memory.
func WithStore(s session.Store) Option { return func(c *config) { c.store = s } }

// WithLogger receives warnings (a skill or sub-agent definition skipped,
// a plan file not written).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithNotify receives what the user should be told while the agent runs:
// an MCP server that did not start, git configuration an MCP server
// changed and the sandbox restored.
func WithNotify(f func(msg string)) Option { return func(c *config) { c.notify = f } }

// WithTools adds tools of your own, after the built-in ones, skills and
// web tools and before MCP servers' tools.
func WithTools(ts ...tool.Tool) Option {
	return func(c *config) { c.tools = append(c.tools, ts...) }
}

// WithEngineOptions adds options to every engine NewEngine opens (turn
// limits, the stall threshold, sub-agent limits, a clock), after the
// builder's own and before NewEngine's.
func WithEngineOptions(opts ...agent.Option) Option {
	return func(c *config) { c.engineOpts = append(c.engineOpts, opts...) }
}
