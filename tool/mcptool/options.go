package mcptool

import (
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultCallTimeout bounds one tool call on a server: a server that never
// answers, or keeps a call's stream alive with notifications and no
// result, would otherwise hold the agent forever.
const DefaultCallTimeout = 10 * time.Minute

// Option configures Connect.
type Option func(*options)

type options struct {
	timeout    time.Duration
	callTime   time.Duration // bounds one tool call (WithCallTimeout)
	dir        string
	version    string
	transports map[string]mcp.Transport
	readOnly   map[string][]string // server → tools the user declares read-only
	starter    Starter
	hideEnv    map[string]bool // more variables no server inherits
	baseEnv    []string        // what stdio servers start from (WithBaseEnv)
	roots      []string        // directories offered as roots (WithRoots)
	elicit     Elicitor        // answers requests for input nobody else can (WithElicitation)
	tokens     TokenStore      // OAuth tokens of HTTP servers (WithTokenStore)
}

// WithRoots offers dirs to servers as their roots (MCP roots/list), as
// file:// URIs: harness9 offers the workdir.
func WithRoots(dirs ...string) Option { return func(o *options) { o.roots = append(o.roots, dirs...) } }

// Starter starts a stdio server's prepared command, for example inside a
// sandbox (sandbox.Sandbox.Start), and returns what to run once the
// process has exited. The command's pipes are already set up and its
// environment is scrubbed of secrets; env holds the variables the
// server's configuration sets, which a starter that rebuilds the
// environment must pass on.
type Starter func(server string, cmd *exec.Cmd, env map[string]string) (cleanup func(), err error)

// WithHiddenEnv keeps more variables from stdio servers, beyond those
// whose names look secret (sandbox.IsSecretName): the program's own
// secrets under plain names, such as a database URL with a password.
func WithHiddenEnv(names ...string) Option {
	return func(o *options) {
		if o.hideEnv == nil {
			o.hideEnv = map[string]bool{}
		}
		for _, n := range names {
			o.hideEnv[n] = true
		}
	}
}

// WithBaseEnv is the environment stdio servers start from, before secrets
// and hidden variables are removed and each server's configured variables
// are added. Without it a server gets only PATH (sandbox.BaseEnv) and its
// configured variables: the package never passes the process's environment
// on by itself; harness9's CLI passes the process environment.
func WithBaseEnv(env []string) Option { return func(o *options) { o.baseEnv = env } }

// WithStarter starts stdio servers through start instead of exec.Cmd.Start.
func WithStarter(start Starter) Option { return func(o *options) { o.starter = start } }

// WithReadOnlyTools declares tools of server (by the server's own names)
// read-only although the server gives no readOnlyHint: they join the
// Plan-Mode tools and run without permission. Only the user's own
// configuration should say this; a project's .mcp.json cannot.
func WithReadOnlyTools(server string, tools ...string) Option {
	return func(o *options) {
		if o.readOnly == nil {
			o.readOnly = map[string][]string{}
		}
		o.readOnly[server] = append(o.readOnly[server], tools...)
	}
}

// WithTimeout sets the per-server start timeout (default 10s).
func WithTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.timeout = d
		}
	}
}

// WithCallTimeout sets how long one tool call may take before it is given
// up and the model told so (default DefaultCallTimeout).
func WithCallTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.callTime = d
		}
	}
}

// WithDir sets the working directory of stdio servers (default: the
// harness's own).
func WithDir(dir string) Option { return func(o *options) { o.dir = dir } }

// WithClientVersion sets the version harness9 reports to servers.
func WithClientVersion(v string) Option { return func(o *options) { o.version = v } }

// WithTransport connects the server called name over t instead of starting
// it from its config: an in-process server (mcp.NewInMemoryTransports) or a
// transport of the caller's own. The server need not appear in the config
// map.
func WithTransport(name string, t mcp.Transport) Option {
	return func(o *options) {
		if o.transports == nil {
			o.transports = map[string]mcp.Transport{}
		}
		o.transports[name] = t
	}
}
