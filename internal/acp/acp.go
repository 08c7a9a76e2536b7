// Package acp is harness9's Agent Client Protocol front end
// (agentclientprotocol.com): `harness9 acp` speaks it on stdio so that
// editors (Zed, JetBrains IDEs, Neovim plugins) drive the same engine,
// store, sandbox, permissions and planning workflow as the TUI.
//
// The package is thin: it maps the engine's events to session/update
// notifications, and the user's answers (permission requests, the plan
// review) back onto the engine. It decides no planning rule: a review
// choice goes through agent.Engine.Review, as in the TUI; permissions
// through agent.ApprovalRequest; modes through agent.Engine.SetMode.
// Everything a session needs (engine, workspace, custom commands) comes
// from the Host, which internal/cli builds with the CLI's own set-up.
package acp

import (
	"context"
	"io"
	"log/slog"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/mcptool"
)

// Host opens what a session runs on. internal/cli implements it with the
// CLI's set-up (store, sandbox, permissions, trust, hooks, skills, MCP).
type Host interface {
	// Ready reports whether a model can be used; the error says what to
	// set (the provider's key variable).
	Ready() error
	// Vision reports whether the configured model accepts images.
	Vision() bool
	// Open builds the runtime of one session: a new one (ResumeID "") or
	// a stored one.
	Open(ctx context.Context, o OpenOptions) (*Runtime, error)
	// List returns the stored sessions of workdir ("" for every
	// directory), most recently updated first.
	List(ctx context.Context, workdir string) ([]session.Summary, error)
}

// OpenOptions are what a client chooses for a session.
type OpenOptions struct {
	// Workdir is the session's directory, already checked (CheckCwd).
	Workdir string
	// ResumeID is the stored session to open; "" starts a new one.
	ResumeID string
	// MCP are the client's MCP servers. They are the user's own, like
	// config.toml's servers: they start whether or not the project is
	// trusted.
	MCP map[string]mcptool.ServerConfig
	// Editor, when the client offers its file system, is where the file
	// tools read and write text files (tool.WithEditor).
	Editor tool.Editor
}

// Runtime is one open session's engine and what goes with it.
type Runtime struct {
	Engine    *agent.Engine
	Workspace *tool.Workspace
	// Commands are the custom slash commands of the session's project and
	// of the user.
	Commands []Command
	// Expand turns a line calling a custom command into the prompt and
	// run options to send; ok is false for any other line. note is for
	// the user (a model the command asks for that cannot be used).
	Expand func(line string) (prompt string, o agent.RunOptions, note string, ok bool)
	// CheckPrompt refuses a prompt that cannot fit the model's context
	// window; nil checks nothing.
	CheckPrompt func(prompt string) error
	// Notices are what the set-up left out or changed (a project's
	// servers not started because it is not trusted).
	Notices []string
	// Discard removes the session from the store (a session the client
	// opened and closed without a prompt); nil keeps it.
	Discard func() error
	// Close stops the session's MCP servers, releases its lock and closes
	// its store.
	Close func()
}

// Command is a custom slash command as the client lists it.
type Command struct {
	Name        string // without the slash
	Description string
	Hint        string // what its arguments are, "" for none
}

// Option configures Serve.
type Option func(*server)

// WithVersion is the version the agent reports in initialize.
func WithVersion(v string) Option { return func(s *server) { s.version = v } }

// WithLogger is where diagnostics go (never stdout, which carries only
// protocol messages).
func WithLogger(l *slog.Logger) Option { return func(s *server) { s.log = l } }

// Serve speaks the protocol on in and out until in ends or ctx is done,
// then cancels the turns still running (their state is saved and the
// sessions stay resumable) and closes every session. Input that is not a
// valid JSON-RPC message is answered with a JSON-RPC error; nothing a
// client sends ends the process.
func Serve(ctx context.Context, in io.Reader, out io.Writer, host Host, opts ...Option) error {
	s := newServer(host, opts...)
	return s.serve(ctx, in, out)
}
