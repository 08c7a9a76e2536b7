package reqcache

import (
	"bytes"
	"math"
	"sort"
	"sync"
)

// Prefix keeps a conversation's previous request body so that the next one
// can start from it. An agent's next request is its previous one plus a
// few messages; copying the whole history into a new body every turn made
// a turn's cost grow with the session. With a Prefix the previous body is
// cut back to the end of the last message both requests share, and only
// the messages after it are appended.
//
// Which messages are shared is the lane's to say (Messages.Open): it
// shrinks the count the body holds to the first message that changed.
// Where a body may be cut is decided by the provider: while it appends
// messages it marks the points where the bytes so far depend only on the
// header and the messages before the point (a point after the last
// message, or one the next message's role changes, is not such a point). A
// Mark carries the provider's framing state there.
//
// The previous body is reused only once every reader the HTTP transport
// got of it is closed; until then a new body is built in full.
type Prefix struct {
	mu    sync.Mutex
	spare *Buffers // bodies that are not the kept one
	body  *Body    // the kept body, nil while a build has it
	free  bool     // nobody holds body: it may be cut
	head  int      // body's header is body.buf[:head]
	marks []mark
	// valid is how many of the conversation's leading messages are, as
	// they are now, in the kept body.
	valid int
}

// Mark is a point in a body where it may be cut and resumed.
type Mark struct {
	N     int   // how many messages the body holds up to the point
	Off   int   // the body's length at the point
	State uint8 // the provider's framing state at the point
}

// mark is a Mark as kept: one per message of a long conversation, so
// small.
type mark struct {
	n, off uint32
	state  uint8
}

func (m mark) Mark() Mark { return Mark{N: int(m.n), Off: int(m.off), State: m.state} }

// Build is one body being built, possibly on the previous one.
type Build struct {
	p     *Prefix // nil: the body is the call's alone
	spare *Buffers
	body  *Body
	head  int
	marks []mark
	n     int // the call's messages
}

// shrink says that only the first n messages of the conversation are still
// as the kept body holds them.
func (p *Prefix) shrink(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.valid = min(p.valid, n)
}

// Start begins the call's body, which starts with head and goes on with
// its messages. It returns the body's bytes so far and the mark they end
// at: the caller appends messages from m.N on, framed as m.State says,
// calls Mark after each message that ends a resumable point, then Finish.
// A resumed body never ends before a point holding more than limit
// messages: the provider's bytes for the messages past limit would differ
// (the API's last-message markers, for one). state0 is the framing state
// right after head. size, called only when the body is built afresh, is
// the expected length of the whole body.
func (k *Call[V]) Start(head []byte, limit int, state0 uint8, size func() int) (*Build, []byte, Mark) {
	if k.prefix == nil {
		return fresh(&Build{spare: &k.c.spare, head: len(head), n: len(k.order)}, head, state0, size)
	}
	return k.prefix.start(head, limit, state0, size, len(k.order))
}

func (p *Prefix) start(head []byte, limit int, state0 uint8, size func() int, msgs int) (*Build, []byte, Mark) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := &Build{p: p, spare: p.spare, head: len(head), n: msgs}
	if p.body != nil && p.free && len(p.marks) > 0 && bytes.Equal(p.body.buf[:p.head], head) {
		shared := min(p.valid, limit)
		// The last mark at or before the shared messages; marks[0] is the
		// header's, so there is one.
		k := sort.Search(len(p.marks), func(i int) bool { return int(p.marks[i].n) > shared }) - 1
		b.body, b.marks = p.body, p.marks[:k+1]
		p.body, p.marks, p.free = nil, nil, false
		m := b.marks[k]
		b.body.buf = b.body.buf[:m.off]
		b.body.refs.Store(1)
		return b, b.body.buf, m.Mark()
	}
	if p.body != nil && p.free {
		// Nothing shared, but the kept buffer may be big enough: reuse it.
		n := size()
		if cap(p.body.buf) >= n {
			b.body, p.body, p.free = p.body, nil, false
			b.body.buf = b.body.buf[:0]
			b.body.refs.Store(1)
			b.body.from = p
			return start(b, head, state0, n)
		}
	}
	b, buf, m := fresh(b, head, state0, size)
	b.body.from = p
	return b, buf, m
}

// fresh starts a body in a buffer from b.spare.
func fresh(b *Build, head []byte, state0 uint8, size func() int) (*Build, []byte, Mark) {
	n := size()
	b.body = b.spare.Get(n)
	return start(b, head, state0, n)
}

func start(b *Build, head []byte, state0 uint8, size int) (*Build, []byte, Mark) {
	b.marks = append(make([]mark, 0, b.n+1), mark{n: 0, off: uint32(len(head)), state: state0})
	return b, append(b.body.buf, head...), b.marks[0].Mark()
}

// Mark records that buf, the body so far, ends after message n-1 at a
// resumable point with framing state state. A body past 4 GiB has no
// more marks: it is never resumed after that point.
func (b *Build) Mark(n int, buf []byte, state uint8) {
	if len(buf) > math.MaxUint32 || n > math.MaxUint32 {
		return
	}
	b.marks = append(b.marks, mark{n: uint32(n), off: uint32(len(buf)), state: state})
}

// Finish sets the body's bytes, keeps it for the next call of its
// conversation and returns it. The caller Releases it when the call is
// over.
func (b *Build) Finish(buf []byte) *Body {
	b.body.Set(buf)
	p := b.p
	if p == nil {
		return b.body
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.body != nil && p.free {
		// The body kept before, free again: a later build may use its buffer.
		p.body.from = p.spare
		p.spare.put(p.body)
	}
	p.body, p.free, p.head = b.body, false, b.head
	p.marks = b.marks
	p.valid = int(b.marks[len(b.marks)-1].n)
	return b.body
}

// put takes back a body nobody holds any more.
func (p *Prefix) put(body *Body) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if body == p.body {
		p.free = true
		return
	}
	body.from = p.spare
	p.spare.put(body)
}
