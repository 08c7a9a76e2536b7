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
type Messages[V any] struct {
	mu      sync.Mutex
	entries map[key]*entry[V]
	calls   uint64
	// last is the previous call's entries in order. An agent's next call
	// is the previous one plus a few messages, so message i is usually
	// last[i], found without hashing.
	last []*entry[V]
}

type key struct {
	role llm.Role
	text *byte // the address of Content's bytes: its identity
	size int
	id   string // ToolCallID, or the first tool call's id
}

type entry[V any] struct {
	msg    llm.Message
	inputs [][]byte
	images []imageSum
	v      V
	used   uint64
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
// returned with the index of the message that caused it.
func (c *Messages[V]) Encode(msgs []llm.Message, encode func(llm.Message) (V, error)) ([]V, int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[key]*entry[V]{}
	}
	c.calls++
	out := make([]V, len(msgs))
	order := make([]*entry[V], len(msgs))
	for i := range msgs {
		m := &msgs[i]
		if i < len(c.last) && c.last[i].matches(m) {
			order[i] = c.last[i]
		} else if e, ok := c.entries[keyOf(m)]; ok && e.matches(m) {
			order[i] = e
		} else {
			v, err := encode(*m)
			if err != nil {
				return nil, i, err
			}
			order[i] = newEntry(m, v, c.calls)
			c.entries[keyOf(m)] = order[i]
		}
		order[i].used = c.calls
		out[i] = order[i].v
	}
	c.last = order
	c.sweep(len(msgs))
	return out, 0, nil
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
	e.msg.ToolCalls = append([]llm.ToolCall(nil), m.ToolCalls...)
	e.inputs = make([][]byte, len(m.ToolCalls))
	for i, c := range m.ToolCalls {
		e.inputs[i] = bytes.Clone(c.Input)
	}
	e.msg.Images = nil
	e.images = sumImages(m.Images)
	return e
}

// matches reports whether m is, field by field, the message e encoded.
// Comparing strings that share their bytes costs nothing, so a hit is
// cheap whatever the message's size.
func (e *entry[V]) matches(m *llm.Message) bool {
	a := &e.msg
	if a.Role != m.Role || a.Content != m.Content || a.Reasoning != m.Reasoning || a.ToolCallID != m.ToolCallID ||
		a.Name != m.Name || a.IsError != m.IsError || len(a.ToolCalls) != len(m.ToolCalls) ||
		len(e.images) != len(m.Images) {
		return false
	}
	for i, im := range m.Images {
		if s := e.images[i]; s.mediaType != im.MediaType || s.size != len(im.Data) ||
			s.sum != maphash.Bytes(imageSeed, im.Data) {
			return false
		}
	}
	for i, c := range m.ToolCalls {
		if c.ID != a.ToolCalls[i].ID || c.Name != a.ToolCalls[i].Name || !bytes.Equal(c.Input, e.inputs[i]) ||
			(c.Input == nil) != (e.inputs[i] == nil) {
			return false
		}
	}
	return true
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
