// Package harness assembles a coding agent the way the harness9 program
// does: one call gives the file tools and bash in the kernel sandbox,
// skills, the project's and the user's instructions (AGENTS.md), web
// tools, MCP servers, hooks, sub-agents, compaction, permission rules and
// plan files, all sharing one workspace. The harness9 CLI, its TUI, serve
// and acp are built on it.
//
//	a, err := harness.New(ctx, provider, workdir,
//		harness.WithModel("gpt-4.1"),
//		harness.WithHome(home), harness.WithDataDir(filepath.Join(home, ".harness9")),
//		harness.WithStore(store))
//	defer a.Close()
//	eng, err := a.NewEngine(agent.WithMode(planning.ModePlan))
//	for ev := range eng.Run(ctx, "add a test for parse.go") { … }
//
// Like every library package it reads no environment variable and looks
// nothing up in the home directory: what the program knows of its user
// (the home directory, the environment children start from, git's
// configuration files, the data directory) it passes as options.
package harness

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/hook"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/skill"
	"github.com/harness9/harness9/subagent"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/mcptool"
)

// Agent is an assembled agent for one workdir: the parts every engine of
// it shares. NewEngine opens a session on it (a new one, or a stored one
// with agent.WithSession); Close stops what it started. It is safe for
// concurrent use.
type Agent struct {
	cfg    config
	ws     *tool.Workspace
	sb     *sandbox.Sandbox
	tools  []tool.Tool
	skills []skill.Skill
	agents []subagent.Definition
	mcp    *mcptool.Manager
	hooks  *hook.Runner
	system string

	mu       sync.Mutex
	provider llm.Provider
	model    string
}

// ConfigError is a problem with what the agent was given — a workdir that
// is not a directory, sandbox options the system refuses, a hook that
// cannot be used — for its caller to fix, as opposed to a failure while
// starting (an MCP connection).
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// New assembles the agent of workdir with provider p. MCP servers are
// started (ctx bounds their start); skills, sub-agent definitions and
// AGENTS.md are read through the workspace. Skills and definitions that
// cannot be used are skipped with a warning (WithLogger).
func New(ctx context.Context, p llm.Provider, workdir string, opts ...Option) (*Agent, error) {
	if p == nil {
		return nil, errors.New("harness: a provider is required")
	}
	c := configure(opts)
	a := &Agent{cfg: c, provider: p, model: c.model}
	var err error
	if a.ws, err = newWorkspace(workdir, c); err != nil {
		return nil, &ConfigError{fmt.Errorf("workdir: %w", err)}
	}
	if a.sb, err = newSandbox(a.ws, c); err != nil {
		return nil, &ConfigError{err}
	}
	a.tools = builtinTools(a.ws, a.sb, c)
	// In the home directory the workdir's data directory is the user's own:
	// its skills, agents and commands are read once, as the user's (as the
	// project's they are on the deny list, and every one would be reported
	// as skipped).
	project := a.ws
	if c.dataDir != "" && sameDir(filepath.Join(workdir, tool.DataDirName), c.dataDir) {
		project = nil
	}
	skills, problems := skill.Discover(project, c.dataDir)
	warn(c.logger, "skill skipped", problems)
	a.skills = skills
	a.tools = append(a.tools, skill.NewUseSkillTool(skills))
	a.tools = append(a.tools, webTools(p, c)...)
	a.tools = append(a.tools, c.tools...)
	// The workdir is the servers' root (WithMCP's options may offer more).
	mc := c
	mc.mcpOpts = append([]mcptool.Option{mcptool.WithRoots(a.ws.Root())}, c.mcpOpts...)
	if a.mcp, err = connectMCP(ctx, a.sb, mc); err != nil {
		return nil, fmt.Errorf("MCP: %w", err)
	}
	if a.hooks, err = newHooks(a.ws, a.sb, c); err != nil {
		a.Close()
		return nil, &ConfigError{err}
	}
	agents, problems := subagent.Discover(project, c.dataDir)
	warn(c.logger, "sub-agent definition skipped", problems)
	a.agents = agents
	a.system = a.SystemPrompt()
	return a, nil
}

// sameDir reports whether a and b are the same existing directory.
func sameDir(a, b string) bool {
	ai, err := os.Stat(a)
	if err != nil {
		return false
	}
	bi, err := os.Stat(b)
	return err == nil && os.SameFile(ai, bi)
}

func warn(l *slog.Logger, msg string, problems []error) {
	for _, p := range problems {
		l.Warn(msg, "problem", p)
	}
}

// NewEngine opens an engine on the agent: a new session, or the stored one
// agent.WithSession names. opts come after the agent's own options and
// WithEngineOptions', so they may override them.
func (a *Agent) NewEngine(opts ...agent.Option) (*agent.Engine, error) {
	a.mu.Lock()
	p, model := a.provider, a.model
	a.mu.Unlock()
	c := a.cfg
	base := []agent.Option{
		agent.WithModel(model),
		agent.WithSystemPrompt(a.system),
		// Rebuilt per run loop: a note added to AGENTS.md reaches the next turn.
		agent.WithSystemPromptFunc(a.SystemPrompt),
		agent.WithTools(a.tools...),
		agent.WithWorkspace(a.ws),
		agent.WithLogger(c.logger),
		agent.WithResultHook(skill.NestedAgentsHook(a.ws, skill.DefaultAgentsMax)),
		agent.WithSubagents(a.agents),
	}
	if a.mcp != nil {
		// Re-read between model calls: a server's tools/list_changed
		// reaches the next one.
		base = append(base, agent.WithToolSource(a.mcp))
	}
	if c.store != nil {
		base = append(base, agent.WithStore(c.store))
	}
	if c.dataDir != "" {
		base = append(base, agent.WithPlanFiles(c.dataDir))
	}
	if !c.noCompaction {
		base = append(base, agent.WithCompactor(compact.New(p, model, c.compactOpts...)))
	}
	if c.perms != nil {
		base = append(base, agent.WithPermissions(c.perms), agent.WithPermissionStore(c.savePerms))
	}
	if a.hooks != nil {
		base = append(base, agent.WithHooks(a.hooks))
	}
	base = append(base, c.engineOpts...)
	return agent.New(p, append(base, opts...)...)
}

// SetProvider makes p and model those of the engines opened from now on
// (a program's "switch model" command); engines already open keep theirs.
func (a *Agent) SetProvider(p llm.Provider, model string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.provider, a.model = p, model
}

// SystemPrompt builds the system prompt as an engine's run loop does:
// agent.DefaultSystemPrompt, the workdir and the date, the project's
// AGENTS.md (or CLAUDE.md, GEMINI.md), the user's AGENTS.md in the data
// directory, and the index of the skills.
func (a *Agent) SystemPrompt() string {
	return systemPrompt(a.ws, a.cfg.dataDir, a.skills, time.Now())
}

// Workspace is the workdir every file the agent opens goes through.
func (a *Agent) Workspace() *tool.Workspace { return a.ws }

// Sandbox is the kernel sandbox commands run in; nil with WithoutSandbox.
// Its Support says whether the kernel can confine them here.
func (a *Agent) Sandbox() *sandbox.Sandbox { return a.sb }

// Tools are the tools every engine gets, in the order the model sees them
// (the engine adds todo_write, submit_plan and the sub-agents' task): the
// MCP servers' tools last, as they are now (a server may change them; an
// engine follows).
func (a *Agent) Tools() []tool.Tool {
	if a.mcp == nil {
		return a.tools
	}
	return append(slices.Clip(a.tools), a.mcp.Tools()...)
}

// Skills are the skills found in the workdir and the data directory.
func (a *Agent) Skills() []skill.Skill { return a.skills }

// Subagents are the sub-agent definitions: the built-in ones and those
// found in the workdir and the data directory.
func (a *Agent) Subagents() []subagent.Definition { return a.agents }

// MCP is the manager of the MCP servers, or nil without servers.
func (a *Agent) MCP() *mcptool.Manager { return a.mcp }

// Store is the store sessions are kept in (WithStore), or nil when they
// live in memory.
func (a *Agent) Store() session.Store { return a.cfg.store }

// Hooks is the runner of the hooks, or nil without hooks.
func (a *Agent) Hooks() *hook.Runner { return a.hooks }

// Close stops the MCP servers. The store is the caller's to close.
func (a *Agent) Close() {
	if a.mcp != nil {
		a.mcp.Close()
	}
}
