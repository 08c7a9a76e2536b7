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
	"sync"
	"time"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/internal/otelsetup"
	"github.com/harness9/harness9/internal/slashcmd"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/permission"
	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/postgres"
	"github.com/harness9/harness9/session/sqlite"
	"github.com/harness9/harness9/skill"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/mcptool"
)

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

// commandsProject is the workspace a project's commands are read from: none
// in the home directory, where the workdir's data directory is the user's
// own and its commands are read once, as the user's.
func commandsProject(c *config.Config, ws *tool.Workspace) *tool.Workspace {
	if sameDir(filepath.Join(c.Workdir, tool.DataDirName), c.Home) {
		return nil
	}
	return ws
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

// wiring is the CLI's set-up of one workdir: the assembled agent (package
// harness, which holds the workspace, sandbox, tools, skills, MCP servers,
// hooks and sub-agents every engine shares) and what only the program
// has: its configuration, the session store, the one-writer lock, slash
// commands, notices, and the model /model switches.
type wiring struct {
	cfg      *config.Config
	agent    *harness.Agent
	resolved config.Resolved
	store    session.Store
	// sharedStore: store belongs to the caller (withSharedStore), not closed here.
	sharedStore bool
	logger      *slog.Logger
	tel         *otelsetup.Setup // nil while telemetry is off
	commands    []slashcmd.Command

	// The agent's parts, which do not change once it is assembled.
	ws      *tool.Workspace
	sandbox *sandbox.Sandbox // nil when the user turned it off
	skills  []skill.Skill
	mcp     *mcptool.Manager
	system  string

	// lockMu guards held: the lock of the session this process writes to
	// (one at a time; the TUI moves it when the user switches sessions).
	lockMu  sync.Mutex
	held    session.Releaser // nil when none
	heldID  string
	noLocks bool // the OS has no advisory locks; warned once

	// modelMu guards resolved and model, which /model changes while the
	// TUI may open an engine.
	modelMu sync.Mutex
	model   string
	// effort is the TUI's /effort, when the user chose one: it replaces
	// the configured effort of every engine opened from now on.
	effort    llm.Effort
	effortSet bool

	// notices are what this run left out or changed on its own (a
	// project's servers not started), said on stderr as they happen and
	// repeated as JSONL notice events by `run --json`.
	noticeMu sync.Mutex
	notices  []string
	noticeW  io.Writer
	// onClose runs after everything else is closed (the demo removes its
	// data directory).
	onClose []func()
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

// newRuntime opens the store and assembles the agent of c's workdir from
// the configuration (agentOptions). Close releases them.
func newRuntime(ctx context.Context, e *env, c *config.Config, p llm.Provider, r config.Resolved, opts ...runtimeOption) (*wiring, error) {
	var o runtimeOptions
	for _, opt := range opts {
		opt(&o)
	}
	noticeW := io.Writer(e.stderr)
	if o.notices != nil {
		noticeW = o.notices
	}
	rt := &wiring{cfg: c, resolved: r, model: c.Model, noticeW: noticeW, logger: e.log()}
	// Everything below may write the data directory (the sandbox's build
	// cache first): a read-only home is named as such, with its fix.
	if err := checkHomeWritable(c.Home); err != nil {
		return nil, withCode(ExitUsage, err)
	}
	perms, err := c.PermissionRules()
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	if n := untrustedNotice(c); n != "" {
		rt.notice(n)
	}
	servers, err := mcpServers(c)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	maps.Copy(servers, o.userMCP)
	if o.store != nil {
		rt.store, rt.sharedStore = o.store, true
	} else if rt.store, err = openStore(ctx, c); err != nil {
		return nil, err
	}
	hopts := append(agentOptions(c, r, perms, os.Getenv),
		harness.WithStore(rt.store),
		harness.WithLogger(rt.logger),
		harness.WithNotify(rt.notice),
		// Nobody can be asked while a session is set up; a front end that
		// can ask (the TUI) answers through agent.WithUserInput instead.
		harness.WithMCP(servers, append(mcpOptions(c), mcptool.WithElicitation(declineElicitation(rt.notice)))...),
		harness.WithWorkspaceOptions(o.workspace...))
	a, err := harness.New(ctx, p, c.Workdir, hopts...)
	if err != nil {
		rt.closeStore()
		var ce *harness.ConfigError
		if errors.As(err, &ce) {
			return nil, withCode(ExitUsage, err)
		}
		return nil, withCode(ExitError, err)
	}
	rt.agent, rt.ws, rt.sandbox, rt.skills, rt.mcp = a, a.Workspace(), a.Sandbox(), a.Skills(), a.MCP()
	if rt.tel, err = telemetry(ctx, e, c, sandboxState(rt)); err != nil {
		rt.Close()
		return nil, err
	}
	if rt.tel != nil {
		// Every model call is a chat span, the compactor's too.
		a.SetProvider(rt.tel.Telemetry.Provider(p), r.Model)
	}
	if rt.mcp != nil {
		for _, st := range rt.mcp.Status() {
			if !st.Connected {
				rt.notice(fmt.Sprintf("MCP server %s did not start: %s", st.Name, serverState(st)))
			}
		}
	}
	rt.commands = discoverCommands(c, commandsProject(c, rt.ws), func(msg string) { rt.logger.Warn(msg) })
	rt.system = a.SystemPrompt()
	return rt, nil
}

// agentOptions is the configuration as the assembled agent's options:
// every value the library does not look up itself (the user's home, the
// environment children start from, git's configuration files, the data
// directory) and every setting of config.toml and the flags.
func agentOptions(c *config.Config, r config.Resolved, perms *permission.Rules, getenv func(string) string) []harness.Option {
	opts := append(environment(c, getenv),
		harness.WithModel(r.Model),
		harness.WithGatedPlanBash(c.Sandbox.PlanBash == config.PlanBashGated),
		harness.WithCompaction(compact.WithThreshold(c.CompactThreshold), compact.WithKeepRecent(c.KeepRecent)),
		harness.WithPermissions(perms, c.SaveProjectAllow),
		harness.WithEngineOptions(
			agent.WithMaxTurns(c.MaxTurns),
			agent.WithToolTimeout(c.ToolTimeout),
			agent.WithMaxToolOutput(c.MaxToolOutput),
			agent.WithEvidenceGate(c.EvidenceGate),
			agent.WithStallThreshold(c.StallThreshold),
			agent.WithMaxExecRounds(c.MaxExecRounds),
			agent.WithSubagentLimits(c.Agents.MaxParallel, c.Agents.MaxDepth, c.Agents.MaxTurns),
			// An answer whose stream broke off is asked again within the
			// same [retry] limits the provider keeps before any chunk.
			agent.WithModelRetry(retryPolicy(c))),
	)
	opts = append(opts, webOptions(c, getenv)...)
	return append(opts, hookOptions(c)...)
}

// closeStore closes the store unless it is the caller's (withSharedStore).
func (rt *wiring) closeStore() {
	if rt.store != nil && !rt.sharedStore {
		rt.store.Close()
	}
}

// Close stops MCP servers, releases the session lock and closes the store.
func (rt *wiring) Close() {
	rt.lockMu.Lock()
	if rt.held != nil {
		_ = rt.held.Release()
	}
	rt.held = nil
	rt.lockMu.Unlock()
	if rt.agent != nil {
		rt.agent.Close()
	}
	rt.closeStore()
	for _, f := range rt.onClose {
		f()
	}
	rt.onClose = nil
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
	// userInput: someone answers the engine's InputRequest events (the
	// TUI), so an MCP server's elicitation is asked, not declined.
	userInput bool
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
	if rt.tel != nil {
		p = rt.tel.Telemetry.Provider(p)
	}
	rt.modelMu.Lock()
	defer rt.modelMu.Unlock()
	rt.agent.SetProvider(p, r.Model)
	rt.resolved, rt.model = r, name
	return nil
}

// setEffort makes e the reasoning effort of the engines opened from now
// on (the TUI's /effort; it also tells the open engine).
func (rt *wiring) setEffort(e llm.Effort) {
	rt.modelMu.Lock()
	defer rt.modelMu.Unlock()
	rt.effort, rt.effortSet = e, true
}

// effortFor is the effort of an engine for the resolved provider: the
// user's /effort, else --effort or the provider's reasoning_effort. The
// caller holds modelMu.
func (rt *wiring) effortFor(r config.Resolved) llm.Effort {
	if rt.effortSet {
		return rt.effort
	}
	return r.Effort
}

func (rt *wiring) newEngine(o engineOptions) (*agent.Engine, error) {
	rt.modelMu.Lock()
	resolved, label := rt.resolved, rt.model
	opts := []agent.Option{
		agent.WithEffort(rt.effortFor(resolved)),
		agent.WithVision(vision(resolved)),
		agent.WithModelLabel(label),
		agent.WithContextWindow(contextWindow(rt.cfg, resolved)),
	}
	if rt.tel != nil {
		opts = append(opts, agent.WithObserver(rt.tel.Telemetry))
	}
	if o.userInput {
		opts = append(opts, agent.WithUserInput(true))
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
	// Under the lock: the agent's provider and rt.resolved change together.
	e, err := rt.agent.NewEngine(opts...)
	rt.modelMu.Unlock()
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
	return session.LockSession(ctx, s, session.LockDir(c.Home), id)
}
