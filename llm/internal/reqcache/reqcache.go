// Package reqcache keeps each conversation message's provider-specific
// encoding between model calls. An agent resends its whole history on every
// turn; encoding it again each time made a turn's cost grow with the
// session. With the cache a request encodes only the messages it has not
// seen before and copies the rest.
package reqcache

import (
	"bytes"
	"hash/maphash"
	"sync"
	"unsafe"

	"github.com/harness9/harness9/llm"
)

// keepCalls is how many model calls an encoding survives unused before a
// sweep may drop it: enough for a compaction request or a second engine
// sharing the provider to interleave without evicting a session's history.
const keepCalls = 8

// Messages caches one encoding V per message. It is safe for concurrent use.
//
// A message is found by the identity of its text (strings are immutable, so
// the same bytes at the same address are the same text) and confirmed by
// comparing every field an encoding may depend on, the tool calls' inputs
// against a private copy since a []byte can change in place. A changed or
// rebuilt message is therefore never served a stale encoding; it is only
// encoded again.
//
// A call allocates nothing that grows with the history: the previous
// call's order is rewritten in place and the slices Encode returns are
// handed back with Recycle. Allocating them afresh for every turn of a
// long session (a few hundred kilobytes of fresh, zeroed pages) cost more
// than checking the messages.
type Messages[V any] struct {
	mu      sync.Mutex
	entries map[key]*entry[V]
	calls   uint64
	// last is the previous call's entries in order. An agent's next call
	// is the previous one plus a few messages, so message i is usually
	// last[i], found without hashing, and confirmed from the slot alone.
	last []slot[V]
	// spare holds slices given back by Recycle for the next Encode.
	spare [][]V
	// ids numbers entries as they are made; an id is never given twice.
	ids uint64
}

// keepSpare bounds Messages.spare: one slice per call in flight at once.
const keepSpare = 2

type key struct {
	role llm.Role
	text *byte // the address of Content's bytes: its identity
	size int
	id   string // ToolCallID, or the first tool call's id
}

type entry[V any] struct {
	msg    llm.Message // with private copies of the tool calls
	images []imageSum
	v      V
	used   uint64
	id     uint64 // this encoding's number in its cache
}

// imageSum stands for an image's bytes: keeping a copy of every image
// would double the memory a session's pictures take, and a hash of a few
// megabytes costs well under a millisecond.
type imageSum struct {
	mediaType string
	size      int
	sum       uint64
}

var imageSeed = maphash.MakeSeed()

func sumImages(imgs []llm.Image) []imageSum {
	if len(imgs) == 0 {
		return nil
	}
	out := make([]imageSum, len(imgs))
	for i, im := range imgs {
		out[i] = imageSum{im.MediaType, len(im.Data), maphash.Bytes(imageSeed, im.Data)}
	}
	return out
}

// Encode returns the encoding of each message, calling encode only for
// messages not seen (unchanged) in a recent call. An encode error is
// returned with the index of the message that caused it. The caller may
// give the returned slice back with Recycle once it is done with it.
func (c *Messages[V]) Encode(msgs []llm.Message, encode func(llm.Message) (V, error)) ([]V, int, error) {
	out, _, i, err := c.EncodeIDs(msgs, encode, nil)
	return out, i, err
}

// EncodeIDs is Encode that also returns each encoding's id, appended to
// ids[:0]. Two calls give a message the same id only if they gave it the
// same encoding, so equal ids stand for equal bytes: a Prefix compares ids
// to know which messages of the previous body it may keep.
func (c *Messages[V]) EncodeIDs(msgs []llm.Message, encode func(llm.Message) (V, error), ids []uint64) ([]V, []uint64, int, error) {
	ids = ids[:0]
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[key]*entry[V]{}
	}
	c.calls++
	out := c.spareFor(len(msgs))
	last := c.last
	for i := range msgs {
		m := &msgs[i]
		if i < len(last) && last[i].holds(m) {
			out[i] = last[i].v
			ids = append(ids, last[i].id)
			continue
		}
		var e *entry[V]
		if i < len(last) && last[i].e.matches(m) {
			e = last[i].e
		} else if found, ok := c.entries[keyOf(m)]; ok && found.matches(m) {
			e = found
		} else {
			v, err := encode(*m)
			if err != nil {
				c.last = last[:min(i, len(last))]
				return nil, ids, i, err
			}
			c.ids++
			e = newEntry(m, v, c.calls)
			e.id = c.ids
			c.entries[keyOf(m)] = e
		}
		// Rewriting last in place is safe: position i is never read again
		// in this call.
		sl := slot[V]{e: e, v: e.v, id: e.id, seen: *m, calls: sumCalls(m.ToolCalls), blocks: e.msg.ReasoningBlocks}
		if i < len(last) {
			last[i] = sl
		} else {
			last = append(last, sl)
		}
		e.used = c.calls
		out[i] = e.v
		ids = append(ids, e.id)
	}
	clear(last[len(msgs):])
	c.last = last[:len(msgs)]
	c.sweep(len(msgs))
	return out, ids, 0, nil
}

// spareFor returns a slice of n values, reusing a recycled one when it is
// big enough.
func (c *Messages[V]) spareFor(n int) []V {
	for len(c.spare) > 0 {
		k := len(c.spare) - 1
		s := c.spare[k]
		c.spare[k] = nil
		c.spare = c.spare[:k]
		if cap(s) >= n {
			// Encodings of dropped messages must not stay reachable.
			clear(s[n:max(n, len(s))])
			return s[:n]
		}
	}
	return make([]V, n, n+n/4)
}

// Recycle gives back a slice Encode returned, for a later call to reuse.
// The caller must not use it afterwards.
func (c *Messages[V]) Recycle(out []V) {
	if cap(out) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.spare) < keepSpare {
		c.spare = append(c.spare, out)
	}
}

// Len reports how many encodings are held (tests).
func (c *Messages[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// sweep drops encodings unused for keepCalls calls once the cache holds
// well over what the current conversation needs; the occasional full scan
// is paid for by the many calls that did not need one.
func (c *Messages[V]) sweep(n int) {
	if len(c.entries) <= 2*n+256 {
		return
	}
	// Hits confirmed from their slot do not touch their entry: the
	// entries of the current order are in use.
	for i := range c.last {
		c.last[i].e.used = c.calls
	}
	for k, e := range c.entries {
		if e.used+keepCalls < c.calls {
			delete(c.entries, k)
		}
	}
}

func keyOf(m *llm.Message) key {
	k := key{role: m.Role, text: unsafe.StringData(m.Content), size: len(m.Content), id: m.ToolCallID}
	if k.id == "" && len(m.ToolCalls) > 0 {
		k.id = m.ToolCalls[0].ID
	}
	return k
}

func newEntry[V any](m *llm.Message, v V, now uint64) *entry[V] {
	e := &entry[V]{msg: *m, v: v, used: now}
	// The entry keeps its own copy of the calls and their inputs: the
	// caller's may change in place.
	e.msg.ToolCalls = append([]llm.ToolCall(nil), m.ToolCalls...)
	for i := range e.msg.ToolCalls {
		e.msg.ToolCalls[i].Input = bytes.Clone(m.ToolCalls[i].Input)
	}
	e.msg.Images = nil
	e.images = sumImages(m.Images)
	e.msg.ReasoningBlocks = append([]llm.ReasoningBlock(nil), m.ReasoningBlocks...)
	return e
}

// matches reports whether m is, field by field, the message e encoded.
// Comparing strings that share their bytes costs nothing, so a hit is
// cheap whatever the message's size.
func (e *entry[V]) matches(m *llm.Message) bool {
	a := &e.msg
	if a.Role != m.Role || !same(a.Content, m.Content) || !same(a.Reasoning, m.Reasoning) ||
		!same(a.ToolCallID, m.ToolCallID) || !same(a.Name, m.Name) || a.IsError != m.IsError ||
		len(a.ToolCalls) != len(m.ToolCalls) || len(e.images) != len(m.Images) ||
		!sameBlocks(a.ReasoningBlocks, m.ReasoningBlocks, same) {
		return false
	}
	for i, im := range m.Images {
		if s := e.images[i]; s.mediaType != im.MediaType || s.size != len(im.Data) ||
			s.sum != maphash.Bytes(imageSeed, im.Data) {
			return false
		}
	}
	for i := range m.ToolCalls {
		c, k := &m.ToolCalls[i], &a.ToolCalls[i]
		if !same(c.ID, k.ID) || !same(c.Name, k.Name) || !bytes.Equal(c.Input, k.Input) ||
			(c.Input == nil) != (k.Input == nil) {
			return false
		}
	}
	return true
}

// slot is one position of the previous call: its entry, what a hit needs
// (the encoding and its id), and the message as the caller held it then.
// A message the caller has not touched since (the same texts at the same
// addresses, tool calls that sum the same, no images) is confirmed without
// visiting its entry: over a long history the entries are scattered in
// memory, and visiting each made a turn's cost grow with the session.
type slot[V any] struct {
	e     *entry[V]
	v     V
	id    uint64
	seen  llm.Message // a shallow copy: its strings and slices are the caller's
	calls uint64      // sumCalls of its tool calls then
	// blocks is a copy of the reasoning blocks then: their slice is the
	// caller's and may be written in place.
	blocks []llm.ReasoningBlock
}

// holds reports whether m is, unchanged, the message the slot saw. It
// answers false (the full check decides) whenever it cannot tell cheaply:
// a text at another address, or images, whose sums cost a hash of their
// bytes.
func (s *slot[V]) holds(m *llm.Message) bool {
	a := &s.seen
	if s.e == nil || a.Role != m.Role || !identical(a.Content, m.Content) || !identical(a.Reasoning, m.Reasoning) ||
		!identical(a.ToolCallID, m.ToolCallID) || !identical(a.Name, m.Name) || a.IsError != m.IsError ||
		len(a.ToolCalls) != len(m.ToolCalls) || len(a.Images) > 0 || len(m.Images) > 0 ||
		!sameBlocks(s.blocks, m.ReasoningBlocks, identical) {
		return false
	}
	return len(m.ToolCalls) == 0 || sumCalls(m.ToolCalls) == s.calls
}

// sameBlocks reports whether two lists of reasoning blocks are equal,
// their strings compared with eq.
func sameBlocks(a, b []llm.ReasoningBlock, eq func(x, y string) bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.After != y.After || !eq(x.Provider, y.Provider) || !eq(x.Type, y.Type) || !eq(x.Text, y.Text) ||
			!eq(x.Signature, y.Signature) || !eq(x.Data, y.Data) {
			return false
		}
	}
	return true
}

// identical reports whether a and b are the same bytes at the same address.
func identical(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

// sumCalls sums what an encoding depends on in calls: each id, name and
// input (a nil input apart from an empty one), with FNV-1a: the sum is
// there to notice a change the caller made in place, not to resist one
// crafted against it (nothing outside the process writes this memory), and
// a hash with a seed cost more than the rest of a hit together.
func sumCalls(calls []llm.ToolCall) uint64 {
	if len(calls) == 0 {
		return 0
	}
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for i := range calls {
		c := &calls[i]
		for j := 0; j < len(c.ID); j++ {
			h = (h ^ uint64(c.ID[j])) * prime
		}
		h = (h ^ 0x100) * prime
		for j := 0; j < len(c.Name); j++ {
			h = (h ^ uint64(c.Name[j])) * prime
		}
		h = (h ^ 0x101) * prime
		if c.Input == nil {
			h = (h ^ 0x102) * prime
		}
		for _, b := range c.Input {
			h = (h ^ uint64(b)) * prime
		}
		h = (h ^ 0x103) * prime
	}
	return h
}

// same reports whether a and b are equal, without a call when they share
// their bytes (the usual case: a message's text is held, not copied).
func same(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// maxTools bounds Tools: definitions change rarely, so a cache this full
// holds mostly stale ones and is simply emptied.
const maxTools = 1024

// Tools caches one encoding V per tool definition, by content: an engine
// hands the same few definitions to every call, so each is parsed and
// encoded once per change instead of once per turn. It is safe for
// concurrent use.
type Tools[V any] struct {
	mu      sync.Mutex
	entries map[toolKey]V
}

type toolKey struct{ name, description, schema string }

// Encode returns the encoding of each definition, calling encode only for
// those not seen before. An encode error is returned as is.
func (c *Tools[V]) Encode(defs []llm.ToolDef, encode func(llm.ToolDef) (V, error)) ([]V, error) {
	if len(defs) == 0 {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) > maxTools {
		c.entries = map[toolKey]V{}
	}
	out := make([]V, len(defs))
	for i, d := range defs {
		k := toolKey{d.Name, d.Description, string(d.InputSchema)}
		v, ok := c.entries[k]
		if !ok {
			var err error
			if v, err = encode(d); err != nil {
				return nil, err
			}
			c.entries[k] = v
		}
		out[i] = v
	}
	return out, nil
}
