package acp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/tool/mcptool"
)

// ErrNotAllowed is wrapped by Host.Open errors about a directory the user
// may not open as a session's cwd (the credential directories, harness9's
// own data directory): they are answered as invalid params.
var ErrNotAllowed = errors.New("this directory may not be a session's cwd")

// sess is one open session.
type sess struct {
	srv *server
	id  sdk.SessionId
	rt  *Runtime
	eng *agent.Engine
	fs  *clientFS // nil when the client offers no file system
	// created: session/new made it in this process (rather than opening
	// a stored one); closed without a prompt, it is discarded.
	created bool
	plans   atomic.Int64 // numbers the plan calls the agent makes itself

	// turn holds one token: a prompt runs while it holds it, so turns of
	// a session never overlap (a new prompt waits for a cancelled one to
	// save its state).
	turn chan struct{}
	gone chan struct{} // closed when the session is closed

	mu       sync.Mutex
	mode     planning.Mode      // the mode the client was last told about
	cancel   context.CancelFunc // the running turn's, nil between turns
	planCall string             // the call that showed the latest plan, for /review
}

func (s *server) newSess(rt *Runtime, fs *clientFS) *sess {
	ss := &sess{srv: s, rt: rt, eng: rt.Engine, fs: fs, turn: make(chan struct{}, 1), gone: make(chan struct{}), mode: rt.Engine.Mode()}
	ss.turn <- struct{}{}
	return ss
}

// close cancels the running turn, waits for it to end and closes the
// session's runtime.
func (ss *sess) close() {
	ss.mu.Lock()
	if ss.cancel != nil {
		ss.cancel()
	}
	ss.mu.Unlock()
	<-ss.turn
	close(ss.gone)
	if ss.created && len(ss.eng.History()) == 0 && ss.rt.Discard != nil {
		// Editors open a session for every new thread; one nobody wrote
		// in would only clutter `sessions list`.
		if err := ss.rt.Discard(); err != nil {
			ss.srv.log.Warn("acp: could not remove an empty session", "session", ss.id, "err", err)
		}
	}
	ss.rt.Close()
}

// checkCwd refuses a cwd that is not an absolute path to a directory
// that can be opened.
func checkCwd(cwd string) error {
	if !filepath.IsAbs(cwd) {
		return invalidParams("cwd must be an absolute path, not %q", cwd)
	}
	fi, err := os.Stat(cwd)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return invalidParams("cwd %s does not exist", cwd)
	case err != nil:
		return invalidParams("cwd %s cannot be opened: %v", cwd, errors.Unwrap(err))
	case !fi.IsDir():
		return invalidParams("cwd %s is not a directory", cwd)
	}
	f, err := os.Open(cwd)
	if err != nil {
		return invalidParams("cwd %s cannot be opened: %v", cwd, errors.Unwrap(err))
	}
	_ = f.Close()
	return nil
}

// open checks a client's session parameters and opens the runtime.
func (s *server) open(ctx context.Context, cwd string, servers []sdk.McpServer, resumeID string) (*Runtime, *clientFS, error) {
	if err := s.ready(); err != nil {
		return nil, nil, err
	}
	if err := checkCwd(cwd); err != nil {
		return nil, nil, err
	}
	if err := s.host.Ready(); err != nil {
		return nil, nil, authRequired(err)
	}
	mcp, err := mcpServers(servers)
	if err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	caps := s.client.Fs
	s.mu.Unlock()
	o := OpenOptions{Workdir: cwd, ResumeID: resumeID, MCP: mcp}
	var fs *clientFS
	if caps.ReadTextFile || caps.WriteTextFile {
		fs = &clientFS{conn: s.conn, read: caps.ReadTextFile, write: caps.WriteTextFile}
		fs.setSession(sdk.SessionId(resumeID))
		o.Editor = fs
	}
	rt, err := s.host.Open(ctx, o)
	if err != nil {
		return nil, nil, openError(err)
	}
	return rt, fs, nil
}

// openError words a Host.Open failure as the protocol error it is.
func openError(err error) error {
	var busy *session.BusyError
	switch {
	case errors.Is(err, session.ErrNotFound):
		return notFound(err.Error())
	case errors.Is(err, agent.ErrOtherWorkdir), errors.Is(err, ErrNotAllowed), errors.Is(err, session.ErrAmbiguous), errors.As(err, &busy):
		return invalidParams("%v", err)
	}
	return internalError(err)
}

// mcpServers turns the client's MCP servers into the harness's.
func mcpServers(list []sdk.McpServer) (map[string]mcptool.ServerConfig, error) {
	out := map[string]mcptool.ServerConfig{}
	for i, m := range list {
		var name string
		var c mcptool.ServerConfig
		switch {
		case m.Stdio != nil:
			name, c = m.Stdio.Name, mcptool.ServerConfig{Type: mcptool.TransportStdio, Command: m.Stdio.Command, Args: m.Stdio.Args}
			if len(m.Stdio.Env) > 0 {
				c.Env = map[string]string{}
				for _, e := range m.Stdio.Env {
					c.Env[e.Name] = e.Value
				}
			}
			if c.Command == "" {
				return nil, invalidParams("mcpServers[%d] (%s): command is empty", i, name)
			}
		case m.Http != nil:
			name, c = m.Http.Name, mcptool.ServerConfig{Type: mcptool.TransportHTTP, URL: m.Http.Url, Headers: headers(m.Http.Headers)}
		case m.Sse != nil:
			name, c = m.Sse.Name, mcptool.ServerConfig{Type: mcptool.TransportSSE, URL: m.Sse.Url, Headers: headers(m.Sse.Headers)}
		default:
			return nil, invalidParams("mcpServers[%d]: only stdio, http and sse servers are supported", i)
		}
		if name == "" {
			return nil, invalidParams("mcpServers[%d] has no name", i)
		}
		if c.Type != mcptool.TransportStdio && c.URL == "" {
			return nil, invalidParams("mcpServers[%d] (%s): url is empty", i, name)
		}
		out[name] = c
	}
	return out, nil
}

func headers(hs []sdk.HttpHeader) map[string]string {
	if len(hs) == 0 {
		return nil
	}
	out := make(map[string]string, len(hs))
	for _, h := range hs {
		out[h.Name] = h.Value
	}
	return out
}

// register adds an open session; a session already open under id (loaded
// twice) is kept and the new runtime closed.
func (s *server) register(ss *sess) (*sess, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		ss.rt.Close()
		return nil, sdk.NewInternalError(map[string]any{"error": "the agent is shutting down"})
	}
	if old, ok := s.sessions[string(ss.id)]; ok {
		ss.rt.Close()
		return old, nil
	}
	s.sessions[string(ss.id)] = ss
	return ss, nil
}

// NewSession implements sdk.Agent: a session in the store, in cwd, with
// the client's MCP servers.
func (s *server) NewSession(ctx context.Context, p sdk.NewSessionRequest) (resp sdk.NewSessionResponse, err error) {
	defer s.guard("session/new", &err)
	rt, fs, err := s.open(ctx, p.Cwd, p.McpServers, "")
	if err != nil {
		return resp, err
	}
	// Created now, so that the id the client gets is the store's and the
	// session is listed (and resumable) before its first prompt; it takes
	// the first prompt as its title.
	id, err := rt.Engine.StartSession(ctx, "")
	if err != nil {
		rt.Close()
		return resp, openError(err)
	}
	if fs != nil {
		fs.setSession(sdk.SessionId(id))
	}
	ss := s.newSess(rt, fs)
	ss.id, ss.created = sdk.SessionId(id), true
	if ss, err = s.register(ss); err != nil {
		return resp, err
	}
	// The client knows the session once it has the response: what is
	// said about the session comes after it.
	s.out.afterLine(fmt.Sprintf(`"sessionId":%q`, id), func() {
		defer s.recoverLog("announcing a session")
		ss.announce(context.Background())
	})
	return sdk.NewSessionResponse{SessionId: ss.id, Modes: ss.modeState()}, nil
}

// LoadSession implements sdk.AgentLoader: the stored session, its history
// replayed as session/update notifications before the response.
func (s *server) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (resp sdk.LoadSessionResponse, err error) {
	defer s.guard("session/load", &err)
	ss, err := s.openStored(ctx, p.SessionId, p.Cwd, p.McpServers)
	if err != nil {
		return resp, err
	}
	ss.replay(ctx)
	ss.announce(ctx)
	return sdk.LoadSessionResponse{Modes: ss.modeState()}, nil
}

// ResumeSession implements sdk.Agent: like session/load without the
// history (the client has it).
func (s *server) ResumeSession(ctx context.Context, p sdk.ResumeSessionRequest) (resp sdk.ResumeSessionResponse, err error) {
	defer s.guard("session/resume", &err)
	ss, err := s.openStored(ctx, p.SessionId, p.Cwd, p.McpServers)
	if err != nil {
		return resp, err
	}
	ss.announce(ctx)
	return sdk.ResumeSessionResponse{Modes: ss.modeState()}, nil
}

// openStored opens a stored session, or returns it when it is open here.
func (s *server) openStored(ctx context.Context, id sdk.SessionId, cwd string, servers []sdk.McpServer) (*sess, error) {
	if id == "" {
		return nil, invalidParams("sessionId is empty")
	}
	if err := s.ready(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	open, ok := s.sessions[string(id)]
	s.mu.Unlock()
	if ok {
		if !sameDir(open.eng.Workdir(), cwd) {
			return nil, invalidParams("session %s belongs to %s, not to %s", id, open.eng.Workdir(), cwd)
		}
		return open, nil
	}
	rt, fs, err := s.open(ctx, cwd, servers, string(id))
	if err != nil {
		return nil, err
	}
	ss := s.newSess(rt, fs)
	// The store's full id: the client may have given a unique prefix.
	ss.id = sdk.SessionId(rt.Engine.SessionID())
	if fs != nil {
		fs.setSession(ss.id)
	}
	return s.register(ss)
}

// sameDir reports whether a and b are the same directory.
func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// ListSessions implements sdk.Agent: the stored sessions (of cwd, when
// given), as `harness9 sessions list` shows them.
func (s *server) ListSessions(ctx context.Context, p sdk.ListSessionsRequest) (resp sdk.ListSessionsResponse, err error) {
	defer s.guard("session/list", &err)
	if err := s.ready(); err != nil {
		return resp, err
	}
	if p.Cursor != nil && *p.Cursor != "" {
		return resp, invalidParams("unknown cursor %q: this agent returns every session in one page", *p.Cursor)
	}
	dir := ""
	if p.Cwd != nil {
		dir = *p.Cwd
	}
	list, err := s.host.List(ctx, dir)
	if err != nil {
		return resp, internalError(err)
	}
	resp.Sessions = make([]sdk.SessionInfo, 0, len(list))
	for _, sum := range list {
		info := sdk.SessionInfo{SessionId: sdk.SessionId(sum.ID), Cwd: sum.Workdir}
		if sum.Title != "" {
			t := sum.Title
			info.Title = &t
		}
		if !sum.Updated.IsZero() {
			u := sum.Updated.UTC().Format(time.RFC3339)
			info.UpdatedAt = &u
		}
		resp.Sessions = append(resp.Sessions, info)
	}
	return resp, nil
}

// CloseSession implements sdk.Agent: the turn is cancelled (its state
// saved) and the session released, so another process (the TUI) can
// resume it.
func (s *server) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (resp sdk.CloseSessionResponse, err error) {
	defer s.guard("session/close", &err)
	ss, err := s.session(p.SessionId)
	if err != nil {
		return resp, err
	}
	s.mu.Lock()
	delete(s.sessions, string(ss.id))
	s.mu.Unlock()
	ss.close()
	return resp, nil
}

// Cancel implements sdk.Agent. The SDK has already cancelled the
// session's running prompt; the turn ends with stop reason "cancelled".
func (s *server) Cancel(_ context.Context, p sdk.CancelNotification) (err error) {
	defer s.guard("session/cancel", &err)
	ss, err := s.session(p.SessionId)
	if err != nil {
		s.log.Warn("acp: session/cancel for a session that is not open", "session", p.SessionId)
		return nil
	}
	ss.mu.Lock()
	if ss.cancel != nil {
		ss.cancel()
	}
	ss.mu.Unlock()
	return nil
}

// SetSessionMode implements sdk.Agent: the mode of the session's next
// turn (a running turn keeps the mode it started in).
func (s *server) SetSessionMode(_ context.Context, p sdk.SetSessionModeRequest) (resp sdk.SetSessionModeResponse, err error) {
	defer s.guard("session/set_mode", &err)
	ss, err := s.session(p.SessionId)
	if err != nil {
		return resp, err
	}
	m, ok := modeByID(p.ModeId)
	if !ok {
		return resp, invalidParams("unknown mode %q; the modes are %s", p.ModeId, modeIDs())
	}
	ss.eng.SetMode(m)
	ss.mu.Lock()
	ss.mode = m
	ss.mu.Unlock()
	return resp, nil
}
