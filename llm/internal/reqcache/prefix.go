package reqcache

import (
	"bytes"
	"sort"
	"sync"
)

// Prefix keeps a provider's previous request body so that the next one
// can start from it. An agent's next request is its previous one plus a
// few messages; copying the whole history into a new body every turn made
// a turn's cost grow with the session. With a Prefix the previous body is
// cut back to the end of the last message both requests share, and only
// the messages after it are appended.
//
// Which messages are shared is decided by the ids Messages.EncodeIDs
// gives: equal ids are equal encodings. Where a body may be cut is decided
// by the provider: while it appends messages it marks the points where the
// bytes so far depend only on the header and the messages before the point
// (a point after the last message, or one the next message's role changes,
// is not such a point). A Mark carries the provider's framing state there.
//
// The previous body is reused only once every reader the HTTP transport
// got of it is closed; until then a new body is built in full. The zero
// value is ready and safe for concurrent use.
type Prefix struct {
	mu    sync.Mutex
	spare Buffers // bodies that are not the kept one
	body  *Body   // the kept body, nil while a build has it
	free  bool    // nobody holds body: it may be cut
	head  int     // body's header is body.buf[:head]
	ids   []uint64
	marks []Mark
	// idBuf is a slice of ids no longer in use, for the next call.
	idBuf []uint64
}

// Mark is a point in a body where it may be cut and resumed.
type Mark struct {
	N     int   // how many messages the body holds up to the point
	Off   int   // the body's length at the point
	State uint8 // the provider's framing state at the point
}

// Build is one body being built, possibly on the previous one.
type Build struct {
	p     *Prefix
	body  *Body
	head  int
	ids   []uint64
	marks []Mark
}

// IDs returns a slice to hand to Messages.EncodeIDs; it may hold a
// previous call's ids, which EncodeIDs overwrites.
func (p *Prefix) IDs() []uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.idBuf
	p.idBuf = nil
	return s
}

// Start begins a body that starts with head and goes on with the messages
// whose ids are ids, which the Build takes. It returns the body's bytes so
// far and the mark they end at: the caller appends messages from m.N on,
// framed as m.State says, calls Mark after each message that ends a
// resumable point, then Finish. A resumed body never ends before a point
// holding more than limit messages: the provider's bytes for the messages
// past limit would differ (the API's last-message markers, for one).
// state0 is the framing state right after head. size is the expected length
// of the whole body.
func (p *Prefix) Start(head []byte, ids []uint64, limit int, state0 uint8, size int) (*Build, []byte, Mark) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := &Build{p: p, head: len(head), ids: ids}
	if p.body != nil && p.free && len(p.marks) > 0 && bytes.Equal(p.body.buf[:p.head], head) {
		shared := 0
		for shared < len(ids) && shared < len(p.ids) && ids[shared] == p.ids[shared] {
			shared++
		}
		shared = min(shared, limit)
		// The last mark at or before the shared messages; marks[0] is the
		// header's, so there is one.
		k := sort.Search(len(p.marks), func(i int) bool { return p.marks[i].N > shared }) - 1
		b.body, b.marks = p.body, p.marks[:k+1]
		p.body, p.marks, p.free = nil, nil, false
		m := b.marks[k]
		b.body.buf = b.body.buf[:m.Off]
		b.body.refs.Store(1)
		return b, b.body.buf, m
	}
	if p.body != nil && p.free && cap(p.body.buf) >= size {
		// Nothing shared, but the kept buffer is big enough: reuse it.
		b.body, p.body, p.free = p.body, nil, false
		b.body.buf = b.body.buf[:0]
		b.body.refs.Store(1)
	} else {
		b.body = p.spare.Get(size)
	}
	b.body.from = p
	b.marks = append(make([]Mark, 0, len(ids)+1), Mark{N: 0, Off: len(head), State: state0})
	buf := append(b.body.buf, head...)
	return b, buf, b.marks[0]
}

// Mark records that buf, the body so far, ends after message n-1 at a
// resumable point with framing state state.
func (b *Build) Mark(n int, buf []byte, state uint8) {
	b.marks = append(b.marks, Mark{N: n, Off: len(buf), State: state})
}

// Finish sets the body's bytes, keeps it for the next Start and returns it.
// The caller Releases it when the call is over.
func (b *Build) Finish(buf []byte) *Body {
	b.body.Set(buf)
	p := b.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ids != nil {
		p.idBuf = p.ids[:0]
	}
	last := b.marks[len(b.marks)-1]
	p.body, p.free, p.head = b.body, false, b.head
	p.ids, p.marks = b.ids[:last.N], b.marks
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
	body.from = &p.spare
	p.spare.put(body)
}
