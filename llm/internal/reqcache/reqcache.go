// Package reqcache keeps what a provider made of a conversation between
// model calls. An agent resends its whole history on every turn; encoding
// it again each time, or even looking at every message to see whether it
// changed, made a turn's cost grow with the session. With the cache a
// request encodes only the messages it has not seen before, and its body
// starts from the previous one.
package reqcache

import (
	"slices"
	"sync"
	"weak"

	"github.com/harness9/harness9/llm"
)

const (
	// maxLanes is how many conversations a cache follows at once: an
	// agent's, its sub-agents' and a compaction's.
	maxLanes = 4
	// staleCalls is how many model calls a conversation may go without one
	// of its own before the cache forgets it: long enough for a sub-agent
	// or a compaction to run while its parent waits, short enough not to
	// keep a history nobody sends any more (the one a compaction replaced).
	staleCalls = 64
)

// Messages caches, for each conversation a provider is sent, the encoding
// V of each of its messages and the last request body built from them. It
// is safe for concurrent use.
//
// A conversation is the array its messages are held in (&Messages[0]): an
// agent's history grows in place, so each request is the previous one plus
// a few messages. The cache keeps one lane per array — the entry of each
// position and the last body — found through a weak pointer, so that an
// array its caller dropped is neither kept alive nor mistaken for a new one
// at the same address.
//
// Which messages of a lane are unchanged is known in one of two ways. A
// caller may promise it (llm.Request.Unchanged): those messages are then
// taken as they were, without a look, and a call costs what changed since
// the previous one. Without a promise every message is checked against its
// entry (entry.matches): a message changed in place, whatever the field, is
// encoded again, never served a stale encoding.
type Messages[V any] struct {
	mu    sync.Mutex
	lanes []*lane[V] // the most recently used last
	calls uint64
	spare Buffers // bodies no lane keeps
}

// lane is one conversation: the entry of each of its messages, in order,
// and the body built from them.
type lane[V any] struct {
	base  weak.Pointer[llm.Message]
	order []*entry[V]
	used  uint64 // the cache's call count when it was last used
	// busy: a call is building a body from the lane. Its order is then
	// read without a lock and must not change; another call with the same
	// array uses a lane of its own.
	busy   bool
	prefix *Prefix
}

// Call is one request's messages, encoded, from which its body is built.
// Close it once the body is finished.
type Call[V any] struct {
	c      *Messages[V]
	lane   *lane[V] // nil when the call keeps nothing for the next one
	order  []*entry[V]
	prefix *Prefix // nil: the body is built afresh
}

// Open encodes msgs, calling encode only for messages it has no encoding
// of, and returns the call to build the body from. unchanged is the
// caller's promise (llm.Request.Unchanged) that the first unchanged
// messages are those its previous request sent from the same array,
// untouched since; 0 promises nothing. An encode error is returned with the
// index of the message that caused it.
func (c *Messages[V]) Open(msgs []llm.Message, unchanged int, encode func(llm.Message) (V, error)) (*Call[V], int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	c.prune()
	k := &Call[V]{c: c}
	if len(msgs) == 0 {
		return k, 0, nil
	}
	base := &msgs[0]
	own := c.laneOf(base)
	if own != nil && !own.busy {
		keep := min(unchanged, len(own.order), len(msgs))
		if i, err := own.update(msgs, keep, nil, encode); err != nil {
			return nil, i, err
		}
		c.use(own)
		k.lane, k.order, k.prefix = own, own.order, own.prefix
		return k, 0, nil
	}
	// A new array: a reallocated or rebuilt history is most often the
	// previous one at the same positions, so a lane whose first message is
	// this one's lends its entries.
	donor := own
	if donor == nil {
		donor = c.donorFor(base)
	}
	l := &lane[V]{}
	if i, err := l.update(msgs, 0, donor, encode); err != nil {
		return nil, i, err
	}
	k.order = l.order
	if own != nil {
		// The array's own lane is busy (the same conversation sent twice
		// at once): this call builds its body alone.
		return k, 0, nil
	}
	l.base = weak.Make(base)
	l.prefix = &Prefix{spare: &c.spare}
	if donor != nil && !donor.busy {
		// The donor's body holds the messages both share: it moves here.
		n := 0
		for n < len(l.order) && n < len(donor.order) && l.order[n] == donor.order[n] {
			n++
		}
		l.prefix, donor.prefix = donor.prefix, l.prefix
		l.prefix.shrink(n)
	}
	c.lanes = append(c.lanes, l)
	c.use(l)
	c.trim()
	k.lane, k.prefix = l, l.prefix
	return k, 0, nil
}

// update brings l.order up to msgs: the first keep entries are taken as
// they are, the rest are confirmed against the lane's own entry at their
// position, then the donor's, or encoded. It tells the lane's body how
// many leading messages it still holds. On an encode error the order ends
// before the message that failed, so nothing unconfirmed is kept.
func (l *lane[V]) update(msgs []llm.Message, keep int, donor *lane[V], encode func(llm.Message) (V, error)) (int, error) {
	prev := l.order
	changed := keep // the first position whose entry may differ from before
	for i := keep; i < len(msgs); i++ {
		m := &msgs[i]
		var e *entry[V]
		switch {
		case i < len(prev) && prev[i].matches(m):
			e = prev[i]
		case donor != nil && i < len(donor.order) && donor.order[i].matches(m):
			e = donor.order[i]
		default:
			v, err := encode(*m)
			if err != nil {
				clear(prev[min(i, len(prev)):])
				l.order = prev[:min(i, len(prev))]
				l.prefix.shrink(min(changed, i))
				return i, err
			}
			e = newEntry(m, v)
		}
		if i < len(prev) {
			if changed == i && prev[i] == e {
				changed++
			}
			prev[i] = e
		} else {
			prev = append(prev, e)
		}
	}
	if len(prev) > len(msgs) {
		clear(prev[len(msgs):])
		prev = prev[:len(msgs)]
	}
	l.order = prev
	l.prefix.shrink(changed)
	return 0, nil
}

// laneOf returns the lane of the array base starts, or nil.
func (c *Messages[V]) laneOf(base *llm.Message) *lane[V] {
	for _, l := range c.lanes {
		if l.base.Value() == base {
			return l
		}
	}
	return nil
}

// donorFor returns the most recently used lane whose first message is
// base's, or nil.
func (c *Messages[V]) donorFor(base *llm.Message) *lane[V] {
	for i := len(c.lanes) - 1; i >= 0; i-- {
		if l := c.lanes[i]; len(l.order) > 0 && l.order[0].matches(base) {
			return l
		}
	}
	return nil
}

// use marks l as used by this call and moves it to the end of the lanes.
func (c *Messages[V]) use(l *lane[V]) {
	l.used, l.busy = c.calls, true
	for i, x := range c.lanes {
		if x == l {
			copy(c.lanes[i:], c.lanes[i+1:])
			c.lanes[len(c.lanes)-1] = l
			return
		}
	}
}

// prune drops the lanes whose array is gone or that went unused too long.
func (c *Messages[V]) prune() {
	kept := c.lanes[:0]
	for _, l := range c.lanes {
		if l.busy || (l.base.Value() != nil && c.calls-l.used <= staleCalls) {
			kept = append(kept, l)
		}
	}
	clear(c.lanes[len(kept):])
	c.lanes = kept
}

// trim drops the least recently used idle lanes beyond maxLanes.
func (c *Messages[V]) trim() {
	for len(c.lanes) > maxLanes {
		i := 0
		for i < len(c.lanes) && c.lanes[i].busy {
			i++
		}
		if i == len(c.lanes) {
			return
		}
		c.lanes = slices.Delete(c.lanes, i, i+1)
	}
}

// Len is how many messages the call has.
func (k *Call[V]) Len() int { return len(k.order) }

// At returns the encoding of message i.
func (k *Call[V]) At(i int) V { return k.order[i].v }

// Close ends the call: its conversation may be used by the next one.
func (k *Call[V]) Close() {
	if k.lane == nil {
		return
	}
	k.c.mu.Lock()
	defer k.c.mu.Unlock()
	k.lane.busy = false
	k.lane = nil
}

// Lanes reports how many conversations the cache follows (tests).
func (c *Messages[V]) Lanes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.lanes)
}
