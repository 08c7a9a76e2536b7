package acp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
)

// server is the agent side of one connection: it implements sdk.Agent.
type server struct {
	host    Host
	version string
	log     *slog.Logger
	conn    *sdk.AgentSideConnection
	out     *lineWriter

	mu          sync.Mutex
	initialized bool
	client      sdk.ClientCapabilities
	sessions    map[string]*sess
	closed      bool
}

func newServer(host Host, opts ...Option) *server {
	s := &server{host: host, version: "dev", log: slog.New(slog.DiscardHandler), sessions: map[string]*sess{}}
	for _, o := range opts {
		o(s)
	}
	return s
}

func (s *server) serve(ctx context.Context, in io.Reader, out io.Writer) error {
	s.out = &lineWriter{w: out}
	pr, pw := io.Pipe()
	go filterInput(in, pw, s.out, s.log)
	s.conn = sdk.NewAgentSideConnection(s, s.out, pr)
	s.conn.SetLogger(s.log)
	select {
	case <-s.conn.Done():
	case <-ctx.Done():
	}
	_ = pr.Close()
	s.closeAll()
	return nil
}

// closeAll cancels every turn, waits for it to end (its state saved) and
// closes every session.
func (s *server) closeAll() {
	s.mu.Lock()
	s.closed = true
	all := make([]*sess, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.sessions = map[string]*sess{}
	s.mu.Unlock()
	for _, ss := range all {
		ss.close()
	}
}

// guard turns a panic in a handler into an internal error: nothing a
// client sends may end the process.
func (s *server) guard(method string, err *error) {
	if p := recover(); p != nil {
		s.log.Error("acp: panic while handling a request", "method", method, "panic", p, "stack", string(debug.Stack()))
		*err = sdk.NewInternalError(map[string]any{"error": fmt.Sprintf("internal error while handling %s: %v", method, p)})
	}
}

// recoverLog logs a panic of work done outside a request handler.
func (s *server) recoverLog(what string) {
	if p := recover(); p != nil {
		s.log.Error("acp: panic while "+what, "panic", p, "stack", string(debug.Stack()))
	}
}

// ready fails requests sent before initialize.
func (s *server) ready() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.initialized {
		return sdk.NewInvalidRequest(map[string]any{"error": "call initialize first"})
	}
	return nil
}

// session returns the open session id, or a "resource not found" error
// that says how to open it.
func (s *server) session(id sdk.SessionId) (*sess, error) {
	if err := s.ready(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss, ok := s.sessions[string(id)]; ok {
		return ss, nil
	}
	return nil, notFound(fmt.Sprintf("no open session %q in this agent; create one with session/new or open a stored one with session/load", id))
}

// notFound is the protocol's "resource not found" error.
func notFound(msg string) *sdk.RequestError {
	return &sdk.RequestError{Code: -32002, Message: "Resource not found", Data: map[string]any{"error": msg}}
}

// invalidParams wraps a message for the client as an invalid-params error.
func invalidParams(format string, args ...any) *sdk.RequestError {
	return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf(format, args...)})
}

// internalError reports a failure of the agent itself.
func internalError(err error) *sdk.RequestError {
	return sdk.NewInternalError(map[string]any{"error": err.Error()})
}

// Initialize implements sdk.Agent: the protocol version and what this
// agent can do, truthfully.
func (s *server) Initialize(_ context.Context, p sdk.InitializeRequest) (resp sdk.InitializeResponse, err error) {
	defer s.guard("initialize", &err)
	s.mu.Lock()
	s.initialized = true
	s.client = p.ClientCapabilities
	s.mu.Unlock()
	title := "harness9"
	resp = sdk.InitializeResponse{
		// The one version this agent speaks: a client asking for another
		// decides whether it can go on (protocol negotiation).
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentInfo:       &sdk.Implementation{Name: "harness9", Title: &title, Version: s.version},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession: true,
			PromptCapabilities: sdk.PromptCapabilities{
				Image:           s.host.Vision(),
				EmbeddedContext: true,
			},
			McpCapabilities: sdk.McpCapabilities{Http: true, Sse: true},
			SessionCapabilities: sdk.SessionCapabilities{
				List:   &sdk.SessionListCapabilities{},
				Resume: &sdk.SessionResumeCapabilities{},
				Close:  &sdk.SessionCloseCapabilities{},
			},
		},
		AuthMethods: []sdk.AuthMethod{},
	}
	if rerr := s.host.Ready(); rerr != nil {
		desc := rerr.Error()
		resp.AuthMethods = []sdk.AuthMethod{{Agent: &sdk.AuthMethodAgent{Id: authEnv,
			Name: "Set the model provider's API key", Description: &desc}}}
	}
	return resp, nil
}

// authEnv names the one "authentication" this agent knows: a key in its
// environment, which only the user can set (before starting it).
const authEnv = "env"

// Authenticate implements sdk.Agent. The key is read from the environment
// the editor starts the agent with; nothing here can set it, so this only
// says whether it is there now, and what to set when it is not.
func (s *server) Authenticate(_ context.Context, p sdk.AuthenticateRequest) (resp sdk.AuthenticateResponse, err error) {
	defer s.guard("authenticate", &err)
	if err := s.ready(); err != nil {
		return resp, err
	}
	if rerr := s.host.Ready(); rerr != nil {
		return resp, authRequired(rerr)
	}
	return resp, nil
}

// authRequired is the protocol's error for a missing credential; its
// message names the variable to set.
func authRequired(err error) *sdk.RequestError {
	return &sdk.RequestError{Code: -32000, Message: "Authentication required: " + err.Error() +
		" (set it in the environment the editor starts `harness9 acp` with, then restart the agent)"}
}

// SetSessionConfigOption implements sdk.Agent; harness9 offers no config
// options (modes are session modes).
func (s *server) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}
