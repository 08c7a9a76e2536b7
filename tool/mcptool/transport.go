package mcptool

import (
	"context"
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
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
		t := &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: httpClient(cfg.Headers),
			MaxRetries: 2, MaxEventSize: maxMessage}
		if o.tokens != nil && !hasAuthorization(cfg.Headers) {
			// A server the user gave no credentials of their own may ask
			// for an OAuth login: the stored token, if any, is sent.
			t.OAuthHandler = newSessionAuth(s, cfg, o.tokens)
		}
		return t, nil, nil
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
