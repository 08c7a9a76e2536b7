package mcptool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultTimeout bounds how long one server may take to start and list its
// tools.
const DefaultTimeout = 10 * time.Second

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
}

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

// ServerStatus is what `harness9 mcp list` shows for one server.
type ServerStatus struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	Connected bool   `json:"connected"`
	// Err says why the server is not connected ("" when it is).
	Err string `json:"error,omitempty"`
	// Tools are the harness9 names of the server's tools (mcp__server__tool).
	Tools []string `json:"tools,omitempty"`
	// Instructions is the server's own advice on using it, if it sent any.
	Instructions string `json:"instructions,omitempty"`
}

// Manager holds the sessions with the connected servers. It is safe for
// concurrent use.
type Manager struct {
	servers []*server // sorted by name
	once    sync.Once
}

type server struct {
	name, transport string
	session         *mcp.ClientSession
	tools           []tool.Tool
	instructions    string
	err             error
	stop            context.CancelFunc // kills a stdio server's process
	stderr          *tailBuffer
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

	m := &Manager{servers: make([]*server, len(names))}
	taken := newNameSet()
	var wg sync.WaitGroup
	for i, name := range names {
		s := &server{name: name}
		m.servers[i] = s
		wg.Add(1)
		go func() {
			defer wg.Done()
			startServer(ctx, s, servers[name], o)
		}()
	}
	wg.Wait()
	// Tool names are assigned after all servers are up, in server order, so
	// collisions after sanitising resolve the same way every time.
	for _, s := range m.servers {
		for _, t := range s.tools {
			t.(*mcpTool).name = taken.claim(s.name, t.(*mcpTool).remote)
		}
	}
	return m, ctx.Err()
}

// startServer connects one server within the timeout and fills in s.
func startServer(ctx context.Context, s *server, cfg ServerConfig, o options) {
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
		tools   []tool.Tool
		err     error
	}
	done := make(chan outcome, 1)
	go func() {
		session, tools, err := initialise(ctx, s.name, t, o.version, o.readOnly[s.name], o.callTime)
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
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("did not answer within %s", timeout)
	}
	if s.stderr != nil {
		if tail := s.stderr.String(); tail != "" {
			err = fmt.Errorf("%w; stderr: %s", err, tail)
		}
	}
	return err
}

// transportFor builds the SDK transport for cfg. For stdio it returns a
// cancel func that kills the process (group).
func (s *server) transportFor(cfg ServerConfig, o options) (mcp.Transport, context.CancelFunc, error) {
	if t, ok := o.transports[s.name]; ok {
		s.transport = "in-process"
		return t, nil, nil
	}
	kind, err := cfg.transport()
	if err != nil {
		return nil, nil, fmt.Errorf("invalid config: %w", err)
	}
	s.transport = kind
	switch kind {
	case TransportHTTP:
		return &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: httpClient(cfg.Headers),
			MaxRetries: 2, MaxEventSize: maxMessage}, nil, nil
	case TransportSSE:
		return &mcp.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: httpClient(cfg.Headers), MaxEventSize: maxMessage}, nil, nil
	}
	path, err := exec.LookPath(cfg.Command)
	if err != nil {
		return nil, nil, fmt.Errorf("command %q not found: %w", cfg.Command, err)
	}
	life, stop := context.WithCancel(context.Background())
	cmd := exec.CommandContext(life, path, cfg.Args...)
	cmd.Dir = o.dir
	// The server inherits no secrets (its tools' output reaches the model):
	// only the variables its configuration names explicitly are passed.
	cmd.Env = sandbox.ScrubEnv(sandbox.BaseEnv(o.baseEnv), nil, o.hideEnv)
	for _, k := range slices.Sorted(maps.Keys(cfg.Env)) {
		cmd.Env = append(cmd.Env, k+"="+cfg.Env[k])
	}
	s.stderr = &tailBuffer{max: 2048}
	cmd.Stderr = s.stderr
	ownProcessGroup(cmd)
	if o.starter != nil {
		t := &startedTransport{name: s.name, cmd: cmd, env: cfg.Env, start: o.starter}
		return t, func() { stop(); t.stop() }, nil
	}
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, stop, nil
}

// startedTransport speaks MCP over the pipes of a command started by a
// Starter.
type startedTransport struct {
	name  string
	cmd   *exec.Cmd
	env   map[string]string
	start Starter

	mu      sync.Mutex
	started bool
	cleanup func()
}

func (t *startedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cleanup, err := t.start(t.name, t.cmd, t.env)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.started, t.cleanup = true, cleanup
	t.mu.Unlock()
	return (&mcp.IOTransport{Reader: stdout, Writer: stdin}).Connect(ctx)
}

// stop reaps the process (the caller has cancelled its context, which
// kills its process group) and runs the starter's cleanup once.
func (t *startedTransport) stop() {
	t.mu.Lock()
	started, cleanup := t.started, t.cleanup
	t.started, t.cleanup = false, nil
	t.mu.Unlock()
	if !started {
		return
	}
	_ = t.cmd.Wait()
	if cleanup != nil {
		cleanup()
	}
}

// initialise runs the MCP handshake and lists the server's tools.
func initialise(ctx context.Context, name string, t mcp.Transport, version string, readOnly []string, callTime time.Duration) (*mcp.ClientSession, []tool.Tool, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "harness9", Version: version}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{}, // no roots, sampling or elicitation
	})
	session, err := client.Connect(ctx, t, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("handshake failed: %w", err)
	}
	var tools []tool.Tool
	if res := session.InitializeResult(); res == nil || res.Capabilities == nil || res.Capabilities.Tools != nil {
		for mt, err := range session.Tools(ctx, nil) {
			if err != nil {
				_ = session.Close()
				return nil, nil, fmt.Errorf("listing tools: %w", err)
			}
			tl := newMCPTool(name, session, mt)
			tl.readOnly = tl.readOnly || slices.Contains(readOnly, mt.Name)
			tl.timeout = callTime
			tools = append(tools, tl)
		}
	}
	return session, tools, nil
}

// Tools returns the tools of every connected server, in server-name order
// and then the server's own order.
func (m *Manager) Tools() []tool.Tool {
	var out []tool.Tool
	for _, s := range m.servers {
		if s.err == nil {
			out = append(out, s.tools...)
		}
	}
	return out
}

// Status reports every configured server, in name order.
func (m *Manager) Status() []ServerStatus {
	out := make([]ServerStatus, 0, len(m.servers))
	for _, s := range m.servers {
		st := ServerStatus{Name: s.name, Transport: s.transport, Connected: s.err == nil, Instructions: s.instructions}
		if s.err != nil {
			st.Err = s.err.Error()
		}
		for _, t := range s.tools {
			st.Tools = append(st.Tools, t.Name())
		}
		out = append(out, st)
	}
	return out
}

// Close ends every session and stops the stdio servers. It is safe to call
// more than once.
func (m *Manager) Close() error {
	var errs []error
	m.once.Do(func() {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, s := range m.servers {
			if s.session == nil {
				s.kill()
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := s.session.Close()
				s.kill()
				if err != nil && !isExitNoise(err) {
					mu.Lock()
					errs = append(errs, fmt.Errorf("closing MCP server %s: %w", s.name, err))
					mu.Unlock()
				}
			}()
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

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.base.RoundTrip(r)
}

// maxMessage bounds one message from an HTTP server, as the SDK bounds a
// stdio server's line: an event of a stream, or a whole plain response.
const maxMessage = mcp.DefaultMaxEventSize

// maxErrorBody bounds the body of an HTTP error response from a server.
const maxErrorBody = 1 << 20

func httpClient(headers map[string]string) *http.Client {
	var base http.RoundTripper = http.DefaultTransport
	if len(headers) > 0 {
		base = headerTransport{headers: headers, base: base}
	}
	return &http.Client{Transport: cappedTransport{base: base, max: maxMessage}}
}

// cappedTransport fails the reading of a plain (not event-stream) response
// past max bytes. The SDK reads such a response whole, so a server
// answering with gigabytes would otherwise take that much memory; event
// streams live long and are bounded per event by the transports instead.
// An error status is capped at maxErrorBody whatever its type: the SDK
// reads an error response whole (looking for a JSON-RPC error in it) even
// when it claims to be an event stream, and an error needs no more.
type cappedTransport struct {
	base http.RoundTripper
	max  int64
}

func (c cappedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := c.base.RoundTrip(r)
	if err != nil || res.Body == nil {
		return res, err
	}
	mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	switch {
	case res.StatusCode < 200 || res.StatusCode > 299:
		res.Body = newCappedBody(res.Body, min(c.max, maxErrorBody), r)
	case mt != "text/event-stream":
		res.Body = newCappedBody(res.Body, c.max, r)
	}
	return res, nil
}

type cappedBody struct {
	io.ReadCloser
	left, max int64
	url       string
}

func newCappedBody(body io.ReadCloser, max int64, r *http.Request) *cappedBody {
	return &cappedBody{ReadCloser: body, left: max, max: max, url: r.URL.Redacted()}
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// At the cap: a body that ends here is fine.
		var one [1]byte
		if n, err := b.ReadCloser.Read(one[:]); n == 0 && err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("the MCP server at %s answered with more than %d KiB in one response", b.url, b.max>>10)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := strings.Join(strings.Fields(strings.ReplaceAll(string(b.buf), "\n", " | ")), " ")
	if len(s) > 500 {
		s = "..." + s[len(s)-500:]
	}
	return s
}
