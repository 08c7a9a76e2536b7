package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/hook"
	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/internal/memory"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/anthropic"
	"github.com/harness9/harness9/llm/openai"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/permission"
	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/postgres"
	"github.com/harness9/harness9/session/sqlite"
	"github.com/harness9/harness9/skill"
	"github.com/harness9/harness9/slashcmd"
	"github.com/harness9/harness9/subagent"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
	"github.com/harness9/harness9/tool/mcptool"
)

// agentsMDLimit caps the AGENTS.md text put in the system prompt.
const agentsMDLimit = 32 * 1024

// mcpStartTimeout bounds how long session start waits for MCP servers.
const mcpStartTimeout = 10 * time.Second

// storeConnectTimeout bounds connecting to a database server and bringing
// its schema up to date, so a server that does not answer fails clearly.
const storeConnectTimeout = 15 * time.Second

// openStore opens the configured session store: the SQLite file in the
// data directory, or the PostgreSQL database of --store.
func openStore(ctx context.Context, c *config.Config) (session.Store, error) {
	if config.StorePostgres(c.Store) {
		ctx, cancel := context.WithTimeout(ctx, storeConnectTimeout)
		defer cancel()
		s, err := postgres.Open(ctx, c.Store)
		if err != nil {
			return nil, withCode(ExitError, fmt.Errorf("%w; check that the server is running and the URL given by --store, %s or store in %s",
				err, config.EnvStore, c.File))
		}
		return s, nil
	}
	if err := checkHomeWritable(c.Home); err != nil {
		return nil, withCode(ExitUsage, err)
	}
	path := session.DefaultPath(c.Home)
	s, err := sqlite.Open(path)
	if err != nil {
		return nil, withCode(ExitUsage, dbProblem(path, err))
	}
	return s, nil
}

// checkHomeWritable makes sure the data directory exists and takes files,
// so that its failure is reported as what it is rather than as a database
// error.
func checkHomeWritable(home string) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("the data directory %s cannot be created (%w); set %s to a writable directory", home, err, config.EnvHome)
	}
	f, err := os.CreateTemp(home, ".write-check-*")
	if err != nil {
		return fmt.Errorf("the data directory %s is not writable (%w); fix its permissions or set %s to a writable directory",
			home, errors.Unwrap(err), config.EnvHome)
	}
	name := f.Name()
	_ = f.Close()
	_ = os.Remove(name)
	return nil
}

// dbProblem words a failure to open the session database for the person
// who has to fix it: a file that is unreadable by permissions, or one that
// is damaged or not harness9's, which has to be moved aside.
func dbProblem(path string, err error) error {
	if f, ferr := os.OpenFile(path, os.O_RDWR, 0); ferr != nil {
		if errors.Is(ferr, fs.ErrPermission) {
			return fmt.Errorf("the session database %s is not readable and writable by you (%w); fix its permissions (chmod 600 %s) or set %s to another directory",
				path, ferr, shellQuote(path), config.EnvHome)
		}
	} else {
		_ = f.Close()
	}
	return fmt.Errorf("the session database %s cannot be used: %w. If it is damaged or not a harness9 database, move it aside "+
		"(mv %s %s.bad) and harness9 starts a new one; or set %s to another directory",
		path, err, shellQuote(path), shellQuote(path), config.EnvHome)
}

// newProvider builds the provider c.Model names. Configuration problems are
// usage errors (exit 2) whose text says what to set.
func newProvider(c *config.Config, getenv func(string) string) (llm.Provider, config.Resolved, error) {
	r, err := c.Resolve(getenv)
	if err != nil {
		return nil, r, withCode(ExitUsage, err)
	}
	switch r.Provider.Type {
	case config.TypeScripted:
		p, err := scripted.LoadFile(r.Model)
		if err != nil {
			return nil, r, withCode(ExitUsage, err)
		}
		return p, r, nil
	case config.TypeAnthropic:
		opts := []anthropic.Option{anthropic.WithName(r.Name), anthropic.WithAPIKey(r.APIKey), anthropic.WithRetry(retryPolicy(c))}
		if r.BaseURL != "" {
			opts = append(opts, anthropic.WithBaseURL(r.BaseURL))
		}
		return anthropic.New(opts...), r, nil
	default:
		opts := []openai.Option{openai.WithName(r.Name), openai.WithAPIKey(r.APIKey), openai.WithRetry(retryPolicy(c))}
		if r.BaseURL != "" {
			opts = append(opts, openai.WithBaseURL(r.BaseURL))
		}
		return openai.New(opts...), r, nil
	}
}

// retryPolicy is the [retry] section as the providers' policy.
func retryPolicy(c *config.Config) llm.RetryPolicy {
	return llm.RetryPolicy{MaxRetries: c.MaxRetries, MaxTotal: c.MaxRetryWait}
}

// contextWindow picks the window: flag/config override, then the provider's
// configured window, then the built-in model table.
func contextWindow(c *config.Config, r config.Resolved) int {
	switch {
	case c.ContextWindow > 0:
		return c.ContextWindow
	case r.Provider.ContextWindow > 0:
		return r.Provider.ContextWindow
	}
	return llm.ContextWindow(r.Model)
}

// vision is whether the configured model accepts images: the provider's
// vision setting, else the built-in table.
func vision(r config.Resolved) bool {
	if r.Provider.Vision != nil {
		return *r.Provider.Vision
	}
	return llm.SupportsVision(r.Model)
}

// wiring is everything one engine needs besides its session.
type wiring struct {
	cfg      *config.Config
	provider llm.Provider
	resolved config.Resolved
	store    session.Store
	tools    []tool.Tool
	system   string
	skills   []skill.Skill
	agents   []subagent.Definition
	mcp      *mcptool.Manager
	logger   *slog.Logger
	sandbox  *sandbox.Sandbox  // nil when the user turned it off
	perms    *permission.Rules // every engine's rules; always-allow answers add to them
	ws       *tool.Workspace   // the workdir, given once: tools, sandbox and engine share it
	hooks    *hook.Runner      // nil when no hook is in effect
	commands []slashcmd.Command

	// lockMu guards held: the lock of the session this process writes to
	// (one at a time; the TUI moves it when the user switches sessions).
	lockMu  sync.Mutex
	held    session.Releaser // nil when none
	heldID  string
	noLocks bool // the OS has no advisory locks; warned once

	// notices are what this run left out or changed on its own (a
	// project's servers not started), said on stderr as they happen and
	// repeated as JSONL notice events by `run --json`.
	// modelMu guards provider, resolved and model, which /model changes
	// while the TUI may open an engine.
	modelMu sync.Mutex
	model   string

	noticeMu sync.Mutex
	notices  []string
	noticeW  io.Writer
}

// notice tells the user about something the run left out or changed.
func (rt *wiring) notice(msg string) {
	rt.noticeMu.Lock()
	defer rt.noticeMu.Unlock()
	rt.notices = append(rt.notices, msg)
	if rt.noticeW != nil {
		fmt.Fprintf(rt.noticeW, "harness9: %s\n", msg)
	}
}

// takeNotices returns the notices said so far and forgets them.
func (rt *wiring) takeNotices() []string {
	rt.noticeMu.Lock()
	defer rt.noticeMu.Unlock()
	out := rt.notices
	rt.notices = nil
	return out
}

// newRuntime opens the store and gathers tools, skills, MCP servers and the
// system prompt. Close releases them.
func newRuntime(ctx context.Context, c *config.Config, p llm.Provider, r config.Resolved, logw io.Writer, opts ...runtimeOption) (*wiring, error) {
	var o runtimeOptions
	for _, opt := range opts {
		opt(&o)
	}
	rt := &wiring{cfg: c, provider: p, resolved: r, model: c.Model, noticeW: logw,
		logger: slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	perms, err := c.PermissionRules()
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	rt.perms = perms
	ws, err := projectWorkspace(c, c.Workdir, o.workspace...)
	if err != nil {
		return nil, withCode(ExitUsage, fmt.Errorf("workdir: %w", err))
	}
	rt.ws = ws
	if rt.sandbox, err = newSandbox(c, ws, os.Getenv); err != nil {
		return nil, withCode(ExitUsage, err)
	}
	rt.tools = builtin.All(ws, bashOptions(c, rt.sandbox, hiddenEnv(c))...)
	skills, problems := skill.Discover(ws, c.Home)
	for _, p := range problems {
		rt.logger.Warn("skill skipped", "problem", p)
	}
	rt.skills = skills
	rt.tools = append(rt.tools, skill.NewUseSkillTool(skills))
	rt.tools = append(rt.tools, webTools(c, p, r.Model, perms, os.Getenv)...)

	if n := untrustedNotice(c); n != "" {
		rt.notice(n)
	}
	servers, err := mcpServers(c)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	maps.Copy(servers, o.userMCP)
	if len(servers) > 0 {
		mctx, cancel := context.WithTimeout(ctx, mcpStartTimeout+2*time.Second)
		rt.mcp, err = mcptool.Connect(mctx, servers, append(mcpOptions(c, rt.sandbox, rt.notice),
			mcptool.WithElicitation(declineElicitation(rt.notice)))...)
		cancel()
		if err != nil {
			return nil, withCode(ExitError, fmt.Errorf("MCP: %w", err))
		}
		for _, st := range rt.mcp.Status() {
			if !st.Connected {
				rt.notice(fmt.Sprintf("MCP server %s did not start: %s", st.Name, serverState(st)))
			}
		}
	}
	if rt.hooks, err = newHooks(rt); err != nil {
		rt.Close()
		return nil, err
	}
	rt.commands = discoverCommands(c, rt.ws, func(msg string) { rt.logger.Warn(msg) })
	agents, problems := subagent.Discover(rt.ws, c.Home)
	for _, p := range problems {
		rt.logger.Warn("sub-agent definition skipped", "problem", p)
	}
	rt.agents = agents
	rt.system = systemPrompt(rt.ws, c.Home, skills)
	if rt.store, err = openStore(ctx, c); err != nil {
		rt.Close()
		return nil, err
	}
	return rt, nil
}

// toolSource is the MCP servers' tools, or nil without servers.
func (rt *wiring) toolSource() agent.ToolSource {
	if rt.mcp == nil {
		return nil
	}
	return rt.mcp
}

// Close stops MCP servers, releases the session lock and closes the store.
func (rt *wiring) Close() {
	rt.lockMu.Lock()
	if rt.held != nil {
		_ = rt.held.Release()
	}
	rt.held = nil
	rt.lockMu.Unlock()
	if rt.mcp != nil {
		rt.mcp.Close()
	}
	if rt.store != nil {
		rt.store.Close()
	}
}

func systemPrompt(ws *tool.Workspace, home string, skills []skill.Skill) string {
	parts := []string{agent.DefaultSystemPrompt,
		fmt.Sprintf("The working directory is %s. Today is %s.", ws.Root(), time.Now().Format("2006-01-02"))}
	if name, md := skill.LoadMemory(ws, agentsMDLimit); md != "" {
		parts = append(parts, fmt.Sprintf("# Project instructions (%s)\n\n%s", name, md))
	}
	if md := memory.LoadUser(home, agentsMDLimit); md != "" {
		parts = append(parts, "# Your instructions (all projects, "+filepath.Join(home, skill.AgentsFile)+")\n\n"+md)
	}
	if idx := skill.Index(skills); idx != "" {
		parts = append(parts, idx)
	}
	return strings.Join(parts, "\n\n")
}

// engineOptions are the per-invocation choices for newEngine.
type engineOptions struct {
	resumeID string
	// noClaim skips the session lock: a durable workflow's steps run one
	// at a time, so the workflow is the session's one writer.
	noClaim bool
	// contextWindow overrides the configured window (0: none): a durable
	// workflow's, started with run --context-window.
	contextWindow int
}

// setModel makes name the model of the engines opened from now on (the
// TUI's /model).
func (rt *wiring) setModel(name string) error {
	c := *rt.cfg
	c.Model = name
	p, r, err := newProvider(&c, os.Getenv)
	if err != nil {
		return err
	}
	rt.modelMu.Lock()
	defer rt.modelMu.Unlock()
	rt.provider, rt.resolved, rt.model = p, r, name
	return nil
}

func (rt *wiring) newEngine(o engineOptions) (*agent.Engine, error) {
	c := rt.cfg
	rt.modelMu.Lock()
	provider, resolved, label := rt.provider, rt.resolved, rt.model
	rt.modelMu.Unlock()
	opts := []agent.Option{
		agent.WithModel(resolved.Model),
		agent.WithVision(vision(resolved)),
		agent.WithModelLabel(label),
		agent.WithSystemPrompt(rt.system),
		// Rebuilt per run loop: a "# note" added to AGENTS.md reaches the next turn.
		agent.WithSystemPromptFunc(func() string { return systemPrompt(rt.ws, c.Home, rt.skills) }),
		agent.WithTools(rt.tools...),
		// MCP tools are re-read between model calls: a server's
		// tools/list_changed reaches the next one.
		agent.WithToolSource(rt.toolSource()),
		agent.WithStore(rt.store),
		agent.WithWorkspace(rt.ws),
		agent.WithPlanFiles(c.Home),
		agent.WithMaxTurns(c.MaxTurns),
		agent.WithToolTimeout(c.ToolTimeout),
		agent.WithMaxToolOutput(c.MaxToolOutput),
		agent.WithContextWindow(contextWindow(c, resolved)),
		agent.WithCompactor(compact.New(provider, resolved.Model,
			compact.WithThreshold(c.CompactThreshold), compact.WithKeepRecent(c.KeepRecent))),
		agent.WithEvidenceGate(c.EvidenceGate),
		agent.WithStallThreshold(c.StallThreshold),
		agent.WithMaxExecRounds(c.MaxExecRounds),
		agent.WithLogger(rt.logger),
		agent.WithResultHook(skill.NestedAgentsHook(rt.ws, agentsMDLimit)),
		agent.WithPermissions(rt.perms),
		agent.WithPermissionStore(c.SaveProjectAllow),
		agent.WithSubagents(rt.agents),
		agent.WithSubagentLimits(c.Agents.MaxParallel, c.Agents.MaxDepth, c.Agents.MaxTurns),
	}
	if rt.hooks != nil {
		opts = append(opts, agent.WithHooks(rt.hooks))
	}
	if !o.noClaim {
		opts = append(opts, agent.WithSessionClaim(rt.claim))
	}
	if o.resumeID != "" {
		opts = append(opts, agent.WithSession(o.resumeID))
	}
	if o.contextWindow > 0 {
		opts = append(opts, agent.WithContextWindow(o.contextWindow))
	}
	e, err := agent.New(provider, opts...)
	var wderr *agent.WorkdirError
	if errors.As(err, &wderr) {
		return nil, usageErr("session %s belongs to %s, not to %s; resume it there with -C %s",
			wderr.SessionID, wderr.SessionWorkdir, wderr.Workdir, shellQuote(wderr.SessionWorkdir))
	}
	if err != nil {
		if errors.Is(err, session.ErrNotFound) || errors.Is(err, session.ErrAmbiguous) {
			return nil, withCode(ExitUsage, err)
		}
		return nil, withCode(ExitError, err)
	}
	return e, nil
}

// claim makes this process the one writer of session id (DESIGN §4): it
// takes the session's lock beside the database and gives up the lock of
// the session it wrote to before, if any. A session another live process
// holds fails with a *session.BusyError naming that process.
func (rt *wiring) claim(ctx context.Context, id string) error {
	rt.lockMu.Lock()
	defer rt.lockMu.Unlock()
	if rt.noLocks || (rt.held != nil && rt.heldID == id) {
		return nil
	}
	l, err := lockSession(ctx, rt.cfg, rt.store, id)
	if errors.Is(err, errors.ErrUnsupported) {
		rt.noLocks = true
		rt.logger.Warn("sessions are not locked on this system: do not run one session from two processes", "err", err)
		return nil
	}
	if err != nil {
		return err
	}
	if rt.held != nil {
		_ = rt.held.Release()
	}
	rt.held, rt.heldID = l, id
	return nil
}

// lockSession takes the one-writer lock of session id: the store's own
// when it locks sessions for every host sharing it (session.Locker), else
// the lock file beside the SQLite database.
func lockSession(ctx context.Context, c *config.Config, s session.Store, id string) (session.Releaser, error) {
	if l, ok := s.(session.Locker); ok {
		return l.LockSession(ctx, id)
	}
	l, err := session.AcquireLock(session.LockDir(c.Home), id)
	if err != nil {
		return nil, err
	}
	return l, nil
}
