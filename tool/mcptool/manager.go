package mcptool

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harness9/harness9/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultTimeout bounds how long one server may take to start and list its
// tools.
const DefaultTimeout = 10 * time.Second

// ServerStatus is what `harness9 mcp list` shows for one server.
type ServerStatus struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	Connected bool   `json:"connected"`
	// Err says why the server is not connected ("" when it is).
	Err string `json:"error,omitempty"`
	// NeedsLogin says the server answered 401 and no usable OAuth token is
	// stored for it: the user has to log in (Login) before it connects.
	NeedsLogin bool `json:"needs_login,omitempty"`
	// Tools are the harness9 names of the server's tools (mcp__server__tool).
	Tools []string `json:"tools,omitempty"`
	// Prompts are the slash commands of the server's prompts.
	Prompts []string `json:"prompts,omitempty"`
	// Instructions is the server's own advice on using it, if it sent any.
	Instructions string `json:"instructions,omitempty"`
}

// Manager holds the sessions with the connected servers. It is safe for
// concurrent use. A server's tools, prompts and resources follow its
// list_changed notifications: Tools returns the current tools and
// Generation changes whenever they do.
type Manager struct {
	servers []*server // sorted by name
	opts    options
	once    sync.Once
	// ctx bounds the manager's background work (list refreshes); Close
	// cancels it.
	ctx    context.Context
	cancel context.CancelFunc
	// started is closed once every server's handshake has ended and the
	// first tool names are assigned; refreshes wait for it.
	started chan struct{}

	namesMu sync.Mutex
	taken   nameSet // every server's tool names (namesMu)

	gen      atomic.Uint64
	progress progressRoutes
}

type server struct {
	m               *Manager
	name, transport string
	session         *mcp.ClientSession
	err             error
	needsLogin      atomic.Bool
	instructions    string
	stop            context.CancelFunc // kills a stdio server's process
	stderr          *tailBuffer

	mu         sync.Mutex
	tools      []*mcpTool
	prompts    []Prompt
	promptsOK  bool // prompts is the server's current list
	resources  []Resource
	resourceOK bool // resources is the server's current list
	calls      []*activeCall
	refreshing bool // a tools refresh is running
	again      bool // another list_changed came while it ran
}

// Connect starts every configured server concurrently and lists its tools.
// A server that fails or does not answer within the timeout is recorded with
// its error (see Status) and skipped; it never delays the others beyond the
// timeout. The returned Manager is never nil and must be closed. The error is
// non-nil only when ctx ended before the servers were started.
func Connect(ctx context.Context, servers map[string]ServerConfig, opts ...Option) (*Manager, error) {
	o := options{timeout: DefaultTimeout, callTime: DefaultCallTimeout, version: "dev"}
	for _, opt := range opts {
		opt(&o)
	}
	names := slices.Sorted(maps.Keys(servers))
	for name := range o.transports {
		if _, dup := servers[name]; !dup {
			names = append(names, name)
		}
	}
	slices.Sort(names)

	m := &Manager{servers: make([]*server, len(names)), opts: o, taken: newNameSet(), started: make(chan struct{})}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i, name := range names {
		s := &server{m: m, name: name}
		m.servers[i] = s
		wg.Go(func() { m.startServer(ctx, s, servers[name]) })
	}
	wg.Wait()
	// Tool names are assigned after all servers are up, in server order, so
	// collisions after sanitising resolve the same way every time.
	m.namesMu.Lock()
	for _, s := range m.servers {
		for _, t := range s.tools {
			t.name = m.taken.claim(s.name, t.remote)
		}
	}
	m.namesMu.Unlock()
	close(m.started)
	return m, ctx.Err()
}

// startServer connects one server within the timeout and fills in s.
func (m *Manager) startServer(ctx context.Context, s *server, cfg ServerConfig) {
	o := m.opts
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	t, life, err := s.transportFor(cfg, o)
	if err != nil {
		s.err = err
		return
	}
	s.stop = life

	type outcome struct {
		session *mcp.ClientSession
		tools   []*mcpTool
		err     error
	}
	done := make(chan outcome, 1)
	go func() {
		session, tools, err := m.initialise(ctx, s, t)
		done <- outcome{session, tools, err}
	}()
	select {
	case r := <-done:
		s.session, s.tools, s.err = r.session, r.tools, r.err
	case <-ctx.Done():
		// The SDK may spend seconds shutting a hung process down; kill it
		// and let the handshake goroutine finish on its own.
		s.kill()
		s.err = ctx.Err()
		go func() {
			if r := <-done; r.session != nil {
				_ = r.session.Close()
			}
		}()
	}
	if s.err != nil {
		s.kill()
		s.err = s.describe(s.err, o.timeout)
		return
	}
	if res := s.session.InitializeResult(); res != nil {
		s.instructions = res.Instructions
	}
}

func (s *server) kill() {
	if s.stop != nil {
		s.stop()
	}
}

// describe words a start failure for the user, with the tail of the
// server's stderr when it wrote any.
func (s *server) describe(err error, timeout time.Duration) error {
	switch {
	case s.needsLogin.Load() || errors.Is(err, ErrLoginRequired):
		s.needsLogin.Store(true)
		return ErrLoginRequired
	case errors.Is(err, context.DeadlineExceeded):
		err = fmt.Errorf("did not answer within %s", timeout)
	}
	if s.stderr != nil {
		if tail := s.stderr.String(); tail != "" {
			err = fmt.Errorf("%w; stderr: %s", err, tail)
		}
	}
	return err
}

// initialise runs the MCP handshake and lists the server's tools and
// prompts.
func (m *Manager) initialise(ctx context.Context, s *server, t mcp.Transport) (*mcp.ClientSession, []*mcpTool, error) {
	session, err := m.newClient(s).Connect(ctx, t, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("handshake failed: %w", err)
	}
	tools, err := m.listTools(ctx, s, session)
	if err != nil {
		_ = session.Close()
		return nil, nil, err
	}
	if prompts, err := listPrompts(ctx, s.name, session); err == nil {
		s.mu.Lock()
		s.prompts, s.promptsOK = prompts, true
		s.mu.Unlock()
	}
	return session, tools, nil
}

// listTools lists the tools of session (s's), unnamed.
func (m *Manager) listTools(ctx context.Context, s *server, session *mcp.ClientSession) ([]*mcpTool, error) {
	var tools []*mcpTool
	if res := session.InitializeResult(); res != nil && res.Capabilities != nil && res.Capabilities.Tools == nil {
		return nil, nil
	}
	for mt, err := range session.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing tools: %w", err)
		}
		tl := newMCPTool(s, mt)
		tl.readOnly = tl.readOnly || slices.Contains(m.opts.readOnly[s.name], mt.Name)
		tl.timeout = m.opts.callTime
		tools = append(tools, tl)
	}
	return tools, nil
}

// Tools returns the tools of every connected server, in server-name order
// and then the server's own order.
func (m *Manager) Tools() []tool.Tool {
	var out []tool.Tool
	for _, s := range m.servers {
		if s.err != nil {
			continue
		}
		s.mu.Lock()
		for _, t := range s.tools {
			out = append(out, t)
		}
		s.mu.Unlock()
	}
	return out
}

// Generation changes whenever the tools Tools returns change (a server's
// notifications/tools/list_changed was followed): an engine that sees a
// new generation between two model calls asks for Tools again.
func (m *Manager) Generation() uint64 { return m.gen.Load() }

// readOnly reports whether every tool of the server is read-only: nothing
// it is asked can change anything through it.
func (s *server) readOnly() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.tools {
		if !t.readOnly {
			return false
		}
	}
	return len(s.tools) > 0
}

// Status reports every configured server, in name order.
func (m *Manager) Status() []ServerStatus {
	out := make([]ServerStatus, 0, len(m.servers))
	for _, s := range m.servers {
		st := ServerStatus{Name: s.name, Transport: s.transport, Connected: s.err == nil, Instructions: s.instructions,
			NeedsLogin: s.err != nil && s.needsLogin.Load()}
		if s.err != nil {
			st.Err = s.err.Error()
		}
		s.mu.Lock()
		for _, t := range s.tools {
			st.Tools = append(st.Tools, t.name)
		}
		for _, p := range s.prompts {
			st.Prompts = append(st.Prompts, "/"+p.Command)
		}
		s.mu.Unlock()
		out = append(out, st)
	}
	return out
}

// connected returns the server called name if it is connected.
func (m *Manager) connected(name string) (*server, bool) {
	for _, s := range m.servers {
		if s.name == name {
			return s, s.err == nil
		}
	}
	return nil, false
}

// Close ends every session and stops the stdio servers. It is safe to call
// more than once.
func (m *Manager) Close() error {
	var errs []error
	m.once.Do(func() {
		m.cancel()
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, s := range m.servers {
			if s.session == nil {
				s.kill()
				continue
			}
			wg.Go(func() {
				err := s.session.Close()
				s.kill()
				if err != nil && !isExitNoise(err) {
					mu.Lock()
					errs = append(errs, fmt.Errorf("closing MCP server %s: %w", s.name, err))
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	})
	return errors.Join(errs...)
}

// isExitNoise reports errors that only say the server process ended the way
// closing it asked it to.
func isExitNoise(err error) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit) || errors.Is(err, mcp.ErrConnectionClosed)
}
