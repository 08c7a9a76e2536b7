package reqcache

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
)

// Buffers recycles request bodies. A long session's body is hundreds of
// kilobytes; allocating it afresh every turn costs more (fresh pages,
// garbage) than encoding the turn's new messages. A sync.Pool would not
// do: every garbage collection empties it, and an agent collects often.
// It keeps at most keepBodies idle bodies. The zero value is ready and safe
// for concurrent use.
type Buffers struct {
	mu   sync.Mutex
	idle []*Body
}

const keepBodies = 2

// Body is one request body. Build it with Append, hand it to WithBody, and
// Release it when the call is over; its buffer is reused only after the
// HTTP transport has also closed every reader it got.
type Body struct {
	buf  []byte
	refs atomic.Int32
	from owner
}

// owner takes a body back once nobody holds it.
type owner interface{ put(*Body) }

// Get returns an empty Body with room for size bytes.
func (b *Buffers) Get(size int) *Body {
	var body *Body
	b.mu.Lock()
	if n := len(b.idle); n > 0 {
		body, b.idle = b.idle[n-1], b.idle[:n-1]
	}
	b.mu.Unlock()
	if body == nil || cap(body.buf) < size {
		// A session's next body is a little longer than its last: room
		// for a quarter more lets the following turns reuse this one.
		body = &Body{buf: make([]byte, 0, size+size/4)}
	}
	body.buf, body.from = body.buf[:0], b
	body.refs.Store(1)
	return body
}

// Bytes returns the body's bytes so far; Set replaces them (after appends).
func (b *Body) Bytes() []byte  { return b.buf }
func (b *Body) Set(buf []byte) { b.buf = buf }

// Release gives up the caller's hold on the body.
func (b *Body) Release() {
	if b.refs.Add(-1) == 0 && b.from != nil {
		b.from.put(b)
	}
}

func (b *Buffers) put(body *Body) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.idle) < keepBodies {
		b.idle = append(b.idle, body)
	}
}

func (b *Body) reader() io.ReadCloser {
	b.refs.Add(1)
	return &bodyReader{r: bytes.NewReader(b.buf), body: b}
}

// bodyReader is one reader of a Body for the HTTP transport. net/http may
// Close a request body while a Read is under way or before one (HTTP/2
// closes it from another goroutine when a stream is aborted), and Close
// lets the buffer be reused for the next request: a Read and a Close are
// therefore serialized, and nothing is read once the reader is closed.
type bodyReader struct {
	mu     sync.Mutex
	r      *bytes.Reader
	body   *Body
	closed bool
}

func (r *bodyReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, errReaderClosed
	}
	return r.r.Read(p)
}

func (r *bodyReader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.closed = true
		r.body.Release()
	}
	return nil
}

var errReaderClosed = errors.New("reqcache: read of a closed request body")

type bodyKey struct{}

// WithBody returns ctx carrying a request body for SetBody.
//
// The SDKs take a body through a request option, but then rewrite it to
// set "stream" (a parse and a copy of the whole history per call); handing
// it over in the context to a middleware that runs just before the HTTP
// client sends the request skips that.
func WithBody(ctx context.Context, body *Body) context.Context {
	return context.WithValue(ctx, bodyKey{}, body)
}

// SetBody replaces req's body with the one its context carries, if any.
// Providers call it from their SDK middleware.
func SetBody(req *http.Request) {
	body, ok := req.Context().Value(bodyKey{}).(*Body)
	if !ok {
		return
	}
	if req.Body != nil {
		_ = req.Body.Close()
	}
	req.ContentLength = int64(len(body.buf))
	req.GetBody = func() (io.ReadCloser, error) { return body.reader(), nil }
	req.Body = body.reader()
	req.Header.Set("Content-Type", "application/json")
}
