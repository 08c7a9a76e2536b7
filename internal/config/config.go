// Package config turns config.toml, environment variables and command-line
// flags into one Config value. Precedence: flags, then environment, then the
// file, then built-in defaults.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
)

// Environment variables harness9 reads.
const (
	EnvHome             = "HARNESS9_HOME"
	EnvModel            = "HARNESS9_MODEL"
	EnvStore            = "HARNESS9_STORE"
	EnvOpenAIKey        = "OPENAI_API_KEY"
	EnvOpenAIBaseURL    = "OPENAI_BASE_URL"
	EnvAnthropicKey     = "ANTHROPIC_API_KEY"
	EnvAnthropicBaseURL = "ANTHROPIC_BASE_URL"
)

// Default models when a key is set but no model is chosen.
const (
	DefaultOpenAIModel    = "openai/gpt-4.1"
	DefaultAnthropicModel = "anthropic/claude-sonnet-4-5"
)

// Price is what a model costs ([pricing]), for the session totals the TUI
// shows, the cost metric and `harness9 stats`. harness9 knows no prices of
// its own (they change); a model without one shows tokens only.
type Price = llm.Price

// Config is the resolved configuration of one harness9 invocation.
type Config struct {
	Home    string // data directory
	File    string // config.toml path (may not exist)
	Workdir string // absolute working directory
	Model   string // "provider/model", "" when none could be chosen
	// Store is where sessions are kept: "" for the SQLite file in Home
	// (the default), or a postgres:// URL (see StorePostgres).
	Store string

	// Effort is --effort, the reasoning effort that overrides every
	// provider's reasoning_effort ("" for none given).
	Effort llm.Effort

	ContextWindow  int           // override in tokens (0 = provider/model default)
	MaxTurns       int           // per run loop
	ToolTimeout    time.Duration // default per tool call
	MaxToolOutput  int           // bytes of a tool result sent to the model
	EvidenceGate   bool
	StallThreshold int
	MaxExecRounds  int

	// Agents are the sub-agent limits ([agents]); zero means the engine's
	// default (agent.DefaultSubagentDepth, DefaultSubagentMaxTurns,
	// subagent.DefaultMaxParallel).
	Agents AgentLimits

	// MaxRetries is how many times a failed model call (429, 5xx, dropped
	// connection) is retried: 0 means the default (llm.DefaultMaxRetries),
	// -1 never.
	MaxRetries int
	// MaxRetryWait caps the total time spent waiting between retries of one
	// call (0 = the default, llm.DefaultMaxTotal).
	MaxRetryWait time.Duration

	// CompactThreshold is the share of the context window that triggers
	// compaction (default compact.DefaultThreshold).
	CompactThreshold float64
	// KeepRecent is how many of the newest messages a summary keeps
	// verbatim at most (default compact.DefaultKeepRecent; fewer when they
	// do not fit under the low-water mark, never fewer than the last turn).
	KeepRecent int

	Providers  map[string]Provider
	MCPServers map[string]MCPServer
	// Pricing maps "provider/model" to its price ([pricing]).
	Pricing map[string]Price

	// Sandbox is the kernel sandbox configuration ([sandbox], [env]).
	Sandbox SandboxConfig

	// Web configures web_fetch and web_search ([web], web.go).
	Web WebConfig
	// Serve configures `harness9 serve` ([serve], [[serve.tokens]]).
	Serve ServeConfig
	// Engine runs sessions: EngineLocal (default) or EngineTemporal.
	Engine string
	// Temporal is the [temporal] section (temporal.go).
	Temporal TemporalConfig
	// Telemetry is the [telemetry] section with the OTEL_* variables
	// applied (telemetry.go).
	Telemetry TelemetryConfig

	// Permissions are the allow/ask/deny rules of every source, in the
	// order they were read (permissions.go).
	Permissions []RuleList
	// TrustProject trusts the project for this invocation only
	// (--trust-project): its MCP servers and hooks may run although the
	// user's stored decision says otherwise. Nothing is stored.
	TrustProject bool

	// Hooks are the user's and the project's hooks (hooks.go).
	Hooks HooksConfig
	// hooksFile is the user's [hooks], parsed once the workdir is known.
	hooksFile hooksFile
	// telemetryFile is [telemetry], resolved with the environment in Load.
	telemetryFile telemetryFile
	// Warnings are problems that did not stop loading (a project's allow
	// rules, which are ignored); the caller shows them.
	Warnings []string
}

// AgentLimits bound the task tool's sub-agents.
type AgentLimits struct {
	MaxParallel int `toml:"max_parallel"` // sub-agents running at once
	MaxDepth    int `toml:"max_depth"`    // 1: a sub-agent cannot start sub-agents
	MaxTurns    int `toml:"max_turns"`    // model calls of one sub-agent
}

// file mirrors config.toml.
type file struct {
	Model         string `toml:"model"`
	Store         string `toml:"store"`
	ContextWindow int    `toml:"context_window"`
	MaxTurns      int    `toml:"max_turns"`
	Tools         struct {
		Timeout   string `toml:"timeout"`
		MaxOutput int    `toml:"max_output"`
	} `toml:"tools"`
	Planning struct {
		EvidenceGate   *bool `toml:"evidence_gate"`
		StallThreshold int   `toml:"stall_threshold"`
		MaxExecRounds  int   `toml:"max_exec_rounds"`
	} `toml:"planning"`
	Agents AgentLimits `toml:"agents"`
	Retry  struct {
		MaxRetries *int   `toml:"max_retries"`
		MaxWait    string `toml:"max_wait"`
	} `toml:"retry"`
	Compaction struct {
		Threshold  float64 `toml:"threshold"`
		KeepRecent int     `toml:"keep_recent"`
	} `toml:"compaction"`
	Providers   map[string]Provider  `toml:"providers"`
	MCPServers  map[string]MCPServer `toml:"mcp_servers"`
	Pricing     map[string]Price     `toml:"pricing"`
	Sandbox     sandboxFile          `toml:"sandbox"`
	Env         envFile              `toml:"env"`
	Permissions permissionsFile      `toml:"permissions"`
	Hooks       hooksFile            `toml:"hooks"`
	Web         webFile              `toml:"web"`
	Serve       ServeConfig          `toml:"serve"`
	Engine      string               `toml:"engine"`
	Temporal    temporalFile         `toml:"temporal"`
	Telemetry   telemetryFile        `toml:"telemetry"`
}

// Flags are the command-line values that override the file and environment.
// Zero values mean "not given".
type Flags struct {
	Model         string
	Workdir       string
	ContextWindow int
	MaxTurns      int
	Effort        string   // --effort low|medium|high
	Sandbox       string   // --sandbox auto|off
	Store         string   // --store sqlite|postgres://…
	Allow, Deny   []string // --allow, --deny rules
	TrustProject  bool     // --trust-project
	// Engine is --engine (local|temporal); TemporalAddress is
	// --temporal-address.
	Engine, TemporalAddress string
}

// Load resolves the configuration. getenv is os.Getenv in production.
func Load(flags Flags, getenv func(string) string) (*Config, error) {
	home, err := homeDir(getenv)
	if err != nil {
		return nil, err
	}
	c := &Config{
		Home:             home,
		File:             filepath.Join(home, "config.toml"),
		MaxTurns:         agent.DefaultMaxTurns,
		ToolTimeout:      tool.DefaultTimeout,
		MaxToolOutput:    tool.DefaultMaxOutput,
		EvidenceGate:     true,
		StallThreshold:   planning.DefaultStallThreshold,
		MaxExecRounds:    planning.DefaultMaxRounds,
		CompactThreshold: compact.DefaultThreshold,
		KeepRecent:       compact.DefaultKeepRecent,
		Providers:        builtinProviders(),
		MCPServers:       map[string]MCPServer{},
		Sandbox:          defaultSandbox(),
		Web:              defaultWeb(),
		Engine:           EngineLocal,
		Temporal:         defaultTemporal(),
	}
	if err := c.readFile(); err != nil {
		return nil, err
	}
	if err := c.applyTelemetry(c.telemetryFile, getenv, func(key, format string, args ...any) error {
		return fmt.Errorf("%s: key %s: %s", c.File, key, fmt.Sprintf(format, args...))
	}); err != nil {
		return nil, err
	}
	c.TrustProject = flags.TrustProject
	if flags.Sandbox != "" {
		if err := checkSandboxMode(flags.Sandbox); err != nil {
			return nil, fmt.Errorf("--sandbox: %w", err)
		}
		c.Sandbox.Mode = flags.Sandbox
	}
	if flags.Engine != "" {
		if err := CheckEngine(flags.Engine); err != nil {
			return nil, fmt.Errorf("--engine: %w", err)
		}
		c.Engine = flags.Engine
	}
	if flags.TemporalAddress != "" {
		c.Temporal.Address = flags.TemporalAddress
	}
	if v := getenv(EnvModel); v != "" {
		c.Model = v
	}
	for _, v := range []struct{ from, val string }{{"key store in " + c.File, c.Store}, {EnvStore, getenv(EnvStore)}, {"--store", flags.Store}} {
		if v.val == "" {
			continue
		}
		st, err := parseStore(v.val)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.from, err)
		}
		c.Store = st
	}
	if flags.Model != "" {
		c.Model = flags.Model
	}
	if c.Effort, err = llm.ParseEffort(flags.Effort); err != nil {
		return nil, fmt.Errorf("--effort: %w", err)
	}
	if flags.ContextWindow < 0 || flags.MaxTurns < 0 {
		return nil, errors.New("--context-window and --max-turns must not be negative")
	}
	if flags.ContextWindow > 0 {
		c.ContextWindow = flags.ContextWindow
	}
	if flags.MaxTurns > 0 {
		c.MaxTurns = flags.MaxTurns
	}
	wd := flags.Workdir
	if wd == "" {
		if wd, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("cannot determine the working directory: %w", err)
		}
	}
	if c.Workdir, err = filepath.Abs(wd); err != nil {
		return nil, fmt.Errorf("workdir %q: %w", wd, err)
	}
	// The workdir is its real location: sessions, trust and the workspace
	// all name it the same way, whichever symlinked path led here.
	if real, err := filepath.EvalSymlinks(c.Workdir); err == nil {
		c.Workdir = real
	}
	if st, err := os.Stat(c.Workdir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("workdir %s is not a directory (set it with -C/--workdir)", c.Workdir)
	}
	if c.Hooks.User, err = parseHooks(c.hooksFile.lists(), c.File, c.Workdir); err != nil {
		return nil, err
	}
	if err := c.loadPermissions(flags); err != nil {
		return nil, err
	}
	if c.Model == "" {
		switch {
		case getenv(EnvAnthropicKey) != "" && getenv(EnvOpenAIKey) == "":
			c.Model = DefaultAnthropicModel
		case getenv(EnvOpenAIKey) != "":
			c.Model = DefaultOpenAIModel
		}
	}
	return c, nil
}

func homeDir(getenv func(string) string) (string, error) {
	if h := getenv(EnvHome); h != "" {
		return filepath.Abs(h)
	}
	uh, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find your home directory; set %s to a data directory: %w", EnvHome, err)
	}
	return filepath.Join(uh, tool.DataDirName), nil
}

func (c *Config) readFile() error {
	data, err := os.ReadFile(c.File)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot read %s: %w; fix it, or set %s to another data directory", c.File, err, EnvHome)
	}
	var f file
	dec := toml.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var sm *toml.StrictMissingError
		if errors.As(err, &sm) {
			return fmt.Errorf("%s: unknown key(s):\n%s", c.File, sm.String())
		}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return fmt.Errorf("%s:%d:%d: %s", c.File, row, col, decodeProblem(de))
		}
		return fmt.Errorf("%s: %w", c.File, err)
	}
	return c.apply(f)
}

// typeMismatch matches go-toml's wording of a value of the wrong type,
// which names Go struct fields and types.
var typeMismatch = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`cannot decode TOML (\w+) into .* of type (\S+)$`) })

// decodeProblem words a decoding error for the person editing the file:
// the key and the kind of value it takes, not the Go type behind it.
func decodeProblem(de *toml.DecodeError) string {
	key := strings.Join(de.Key(), ".")
	msg := strings.TrimPrefix(de.Error(), "toml: ")
	if m := typeMismatch().FindStringSubmatch(msg); m != nil && key != "" {
		return fmt.Sprintf("key %s must be %s, not a TOML %s", key, tomlKind(m[2]), m[1])
	}
	if key == "" {
		return msg
	}
	return fmt.Sprintf("key %s: %s", key, msg)
}

// tomlKind names the TOML value a Go type of the config file takes.
func tomlKind(goType string) string {
	switch strings.TrimPrefix(goType, "*") {
	case "string":
		return "a string (in quotes)"
	case "int", "int64":
		return "an integer"
	case "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "[]string":
		return `an array of strings (["a", "b"])`
	}
	if strings.HasPrefix(goType, "map[") || strings.HasPrefix(goType, "config.") || strings.HasPrefix(goType, "struct") {
		return "a table"
	}
	return "another kind of value"
}

func (c *Config) apply(f file) error {
	bad := func(key, format string, args ...any) error {
		return fmt.Errorf("%s: key %s: %s", c.File, key, fmt.Sprintf(format, args...))
	}
	c.Model = f.Model
	c.Store = f.Store
	if f.ContextWindow < 0 {
		return bad("context_window", "must not be negative")
	}
	c.ContextWindow = f.ContextWindow
	if f.MaxTurns < 0 {
		return bad("max_turns", "must not be negative")
	}
	if f.MaxTurns > 0 {
		c.MaxTurns = f.MaxTurns
	}
	if f.Tools.Timeout != "" {
		d, err := time.ParseDuration(f.Tools.Timeout)
		if err != nil || d <= 0 {
			return bad("tools.timeout", "%q is not a positive duration like \"90s\" or \"2m\"", f.Tools.Timeout)
		}
		c.ToolTimeout = d
	}
	if f.Tools.MaxOutput < 0 {
		return bad("tools.max_output", "must not be negative")
	}
	if f.Tools.MaxOutput > 0 {
		c.MaxToolOutput = f.Tools.MaxOutput
	}
	if f.Planning.EvidenceGate != nil {
		c.EvidenceGate = *f.Planning.EvidenceGate
	}
	if f.Planning.StallThreshold < 0 || f.Planning.MaxExecRounds < 0 {
		return bad("planning", "stall_threshold and max_exec_rounds must not be negative")
	}
	if f.Planning.StallThreshold > 0 {
		c.StallThreshold = f.Planning.StallThreshold
	}
	if f.Planning.MaxExecRounds > 0 {
		c.MaxExecRounds = f.Planning.MaxExecRounds
	}
	if a := f.Agents; a.MaxParallel < 0 || a.MaxDepth < 0 || a.MaxTurns < 0 {
		return bad("agents", "max_parallel, max_depth and max_turns must not be negative")
	}
	c.Agents = f.Agents
	if err := c.applyTuning(f, bad); err != nil {
		return err
	}
	if err := c.applyTemporal(f, bad); err != nil {
		return err
	}
	if err := c.applySandbox(f.Sandbox, f.Env, bad); err != nil {
		return err
	}
	if err := c.applyPermissions(f.Permissions); err != nil {
		return err
	}
	c.hooksFile = f.Hooks
	c.telemetryFile = f.Telemetry
	c.Hooks.Unconfined = f.Hooks.Unconfined
	if err := c.applyWeb(f.Web, bad); err != nil {
		return err
	}
	if err := c.applyServe(f.Serve, bad); err != nil {
		return err
	}
	if err := c.applyProviders(f.Providers, bad); err != nil {
		return err
	}
	for name, pr := range f.Pricing {
		if pr.Input < 0 || pr.Output < 0 || pr.CacheRead < 0 || pr.CacheWrite < 0 {
			return bad("pricing."+name, "prices must not be negative")
		}
		if c.Pricing == nil {
			c.Pricing = map[string]Price{}
		}
		c.Pricing[name] = pr
	}
	for name, s := range f.MCPServers {
		if err := checkMCPServer(s); err != "" {
			return bad("mcp_servers."+name, "%s", err)
		}
		c.MCPServers[name] = s
	}
	return nil
}

// PriceOf returns model's configured price.
func (c *Config) PriceOf(model string) (Price, bool) {
	p, ok := c.Pricing[model]
	return p, ok
}

// applyTuning reads the [retry] and [compaction] sections.
func (c *Config) applyTuning(f file, bad func(key, format string, args ...any) error) error {
	if r := f.Retry.MaxRetries; r != nil {
		switch {
		case *r < 0:
			return bad("retry.max_retries", "must not be negative (0 turns retries off)")
		case *r == 0:
			c.MaxRetries = -1
		default:
			c.MaxRetries = *r
		}
	}
	if f.Retry.MaxWait != "" {
		d, err := time.ParseDuration(f.Retry.MaxWait)
		if err != nil || d <= 0 {
			return bad("retry.max_wait", "%q is not a positive duration like \"6s\"", f.Retry.MaxWait)
		}
		c.MaxRetryWait = d
	}
	if t := f.Compaction.Threshold; t != 0 {
		if t < 0.1 || t > 1 {
			return bad("compaction.threshold", "%v is not a share of the window between 0.1 and 1", t)
		}
		c.CompactThreshold = t
	}
	if k := f.Compaction.KeepRecent; k != 0 {
		if k < 1 {
			return bad("compaction.keep_recent", "must be at least 1")
		}
		c.KeepRecent = k
	}
	return nil
}
