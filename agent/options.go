package agent

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/permission"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/subagent"
	"github.com/harness9/harness9/tool"
)

// Defaults of an Engine.
const (
	DefaultMaxTurns = 50
	// titleMax caps a session title taken from the first prompt, in runes.
	titleMax = 80
)

// Option configures an Engine.
type Option func(*config)

type config struct {
	model          string
	effort         llm.Effort
	modelLabel     string
	system         string
	tools          []tool.Tool
	store          session.Store
	sessionID      string
	workdir        string
	workspace      *tool.Workspace
	planHome       string // "" = plan files off
	maxTurns       int
	toolTimeout    time.Duration
	maxToolOutput  int
	contextWindow  int
	compactor      *compact.Compactor
	evidenceGate   bool
	stallThreshold int
	maxExecRounds  int
	mode           planning.Mode
	modeSet        bool
	logger         *slog.Logger
	now            func() time.Time
	resultHook     ResultHook
	planWriters    []planning.PlanWriter
	claim          func(ctx context.Context, sessionID string) error
	permissions    *permission.Rules
	savePermission func(rules []string) error
	hooks          Hooks
	noCheckpoints  bool
	systemFunc     func() string
	vision         *bool
	// requestImages and requestImageBytes bound the images of one model
	// request (WithRequestImages).
	requestImages     int
	requestImageBytes int
	requestImagesSet  bool
	subagents         []subagent.Definition
	subParallel       int
	subDepth          int
	subTurns          int
	depth             int        // 0 for a top-level engine, 1 for its sub-agents ...
	toolSource        ToolSource // tools that may change (WithToolSource)
	userInput         bool       // tools may ask the user (WithUserInput)
	parentID          string     // a sub-agent's parent session
	childTitle        string     // a sub-agent's session title (the task's description)
	modelRetry        *llm.RetryPolicy
	agentName         string // a sub-agent's definition name
	observer          Observer
}

// ResultHook may amend a successful tool result before the model sees it and
// before it is stored (the CLI uses it to show a nested AGENTS.md the first
// time the model touches a file below it).
type ResultHook func(toolName string, input json.RawMessage, res *tool.Result)

// WithPlanWriter adds w to the places every successful todo_write (and
// submit_plan) persists the todo list, next to the engine's own plan file
// and task TODO.md: a database, an issue tracker, a dashboard. Like the plan
// files it is fail-open: an error is logged, never shown to the model.
func WithPlanWriter(w planning.PlanWriter) Option {
	return func(c *config) {
		if w != nil {
			c.planWriters = append(c.planWriters, w)
		}
	}
}

// WithResultHook installs h; it runs for every successful tool call, possibly
// from several goroutines at once.
func WithResultHook(h ResultHook) Option { return func(c *config) { c.resultHook = h } }

// WithModel sets the model name sent in requests (without the "provider/"
// prefix).
func WithModel(name string) Option { return func(c *config) { c.model = name } }

// WithEffort sets the reasoning effort the engine's model calls ask for
// (llm.Request.Effort; default none). SetEffort changes it later.
func WithEffort(e llm.Effort) Option { return func(c *config) { c.effort = e } }

// WithVision says whether the model accepts images. It defaults to
// llm.SupportsVision(model). Without vision a run with images fails with
// ErrNoVision before any model call, and images in tool results are
// replaced by a note saying the model cannot see them.
func WithVision(on bool) Option { return func(c *config) { c.vision = &on } }

// WithRequestImages bounds the images one model request carries: past n
// images or maxBytes of them, the oldest are left out of the request (not
// out of the session), each message that lost its images saying so. The
// defaults are DefaultRequestImages and DefaultRequestImageBytes; a limit
// of 0 or less is no limit.
func WithRequestImages(n, maxBytes int) Option {
	return func(c *config) { c.requestImages, c.requestImageBytes = n, maxBytes; c.requestImagesSet = true }
}

// WithModelLabel sets the "provider/model" label stored with the session.
// It defaults to "<provider name>/<model>".
func WithModelLabel(label string) Option { return func(c *config) { c.modelLabel = label } }

// WithSystemPrompt replaces the default system prompt (DefaultSystemPrompt).
func WithSystemPrompt(s string) Option { return func(c *config) { c.system = s } }

// WithSystemPromptFunc builds the system prompt at the start of every run
// loop instead (so notes added to AGENTS.md between turns reach the next
// one). It overrides WithSystemPrompt; an empty result means
// DefaultSystemPrompt.
func WithSystemPromptFunc(f func() string) Option { return func(c *config) { c.systemFunc = f } }

// WithTools adds tools the model may call. The engine adds todo_write and
// submit_plan itself.
func WithTools(ts ...tool.Tool) Option {
	return func(c *config) { c.tools = append(c.tools, ts...) }
}

// WithStore persists sessions, messages and planning state. Without a store
// the engine keeps everything in memory.
func WithStore(s session.Store) Option { return func(c *config) { c.store = s } }

// WithSession resumes the stored session with this id (or unique id
// prefix): its history, todos, plan and status are loaded by New.
func WithSession(id string) Option { return func(c *config) { c.sessionID = id } }

// WithSessionClaim makes the engine call claim before it writes to a
// session: in New, for the session WithSession names (before its history
// is loaded), and in the first Run, right after it creates a new session.
// An error from claim fails New or that run, so a program can keep one
// writer per session; harness9's CLI takes session.AcquireLock there.
func WithSessionClaim(claim func(ctx context.Context, sessionID string) error) Option {
	return func(c *config) { c.claim = claim }
}

// WithWorkdir sets the directory the agent works in (default: the current
// directory). It decides where plan files land.
func WithWorkdir(dir string) Option { return func(c *config) { c.workdir = dir } }

// WithWorkspace gives the engine its workdir as the workspace the file
// tools share: the workdir is the workspace's root unless WithWorkdir says
// otherwise, and Plan Mode's bash gate checks paths against it. Give the
// workdir once, this way; without either option the engine builds
// tool.NewWorkspace of the current directory.
func WithWorkspace(ws *tool.Workspace) Option { return func(c *config) { c.workspace = ws } }

// WithPlanFiles turns on the engine's own files: the session's plan file
// (plans/<ts>-<id8>.md, rewritten on every todo_write) and an approved
// plan's task directory (PLAN.md, TODO.md). They land in <workdir>/.harness9
// when the workdir is a git repository, else in home (harness9's CLI passes
// its data directory). Without this option the engine writes no file of its
// own; WithPlanWriter still receives every todo list.
func WithPlanFiles(home string) Option { return func(c *config) { c.planHome = home } }

// WithMaxTurns caps the model calls of one run (default DefaultMaxTurns).
func WithMaxTurns(n int) Option { return func(c *config) { c.maxTurns = n } }

// WithToolTimeout sets the default per-call tool timeout
// (tool.DefaultTimeout when unset).
func WithToolTimeout(d time.Duration) Option { return func(c *config) { c.toolTimeout = d } }

// WithMaxToolOutput caps, in bytes, a tool result sent to the model
// (tool.DefaultMaxOutput when unset).
func WithMaxToolOutput(n int) Option { return func(c *config) { c.maxToolOutput = n } }

// WithContextWindow overrides the model's context window in tokens
// (default llm.ContextWindow(model)).
func WithContextWindow(n int) Option { return func(c *config) { c.contextWindow = n } }

// WithCompactor enables automatic compaction before model calls whose
// context passes the compactor's threshold, and manual Compact.
func WithCompactor(cp *compact.Compactor) Option { return func(c *config) { c.compactor = cp } }

// WithEvidenceGate turns todo_write's evidence gate on or off (default on):
// an item may become completed only after a real tool call since the last
// todo_write.
func WithEvidenceGate(on bool) Option { return func(c *config) { c.evidenceGate = on } }

// WithStallThreshold sets how many auto-execution rounds without a newly
// completed item stop execution as stalled (planning's default 3).
func WithStallThreshold(n int) Option { return func(c *config) { c.stallThreshold = n } }

// WithMaxExecRounds caps the rounds of one auto-execution (planning's
// default).
func WithMaxExecRounds(n int) Option { return func(c *config) { c.maxExecRounds = n } }

// WithMode sets the initial mode. A resumed session keeps its stored mode
// unless this option is given.
func WithMode(m planning.Mode) Option {
	return func(c *config) { c.mode = m; c.modeSet = true }
}

// WithLogger receives diagnostics that are not sent to the model (plan
// files that could not be written, state that could not be saved).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithClock replaces time.Now for timestamps in plan file and task
// directory names.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }
