package reqcache

import (
	"encoding/binary"
	"hash/maphash"
	"slices"
	"unsafe"

	"github.com/harness9/harness9/llm"
)

// entry is one message's encoding and what it was made from: enough to
// tell, without keeping a copy of the message, whether a message is still
// the one encoded. The strings are the caller's own (a message's text is
// held, not copied); what the caller could change in place under them —
// the bytes of tool call inputs and of images — is kept as a sum.
//
// An entry is made once and never changed, so a call may read the
// encodings of its conversation's entries without a lock.
type entry[V any] struct {
	v                                V
	role                             llm.Role
	content, reasoning, callID, name string
	calls, images                    uint64 // sumCalls, sumImages
	// blocks is a copy of the message's reasoning blocks (their strings
	// shared): the caller's slice may be written in place.
	blocks          []llm.ReasoningBlock
	ncalls, nimages int32
	isError         bool
}

func newEntry[V any](m *llm.Message, v V) *entry[V] {
	return &entry[V]{v: v, role: m.Role, content: m.Content, reasoning: m.Reasoning, callID: m.ToolCallID, name: m.Name,
		calls: sumCalls(m.ToolCalls), images: sumImages(m.Images), blocks: slices.Clone(m.ReasoningBlocks),
		ncalls: int32(len(m.ToolCalls)), nimages: int32(len(m.Images)), isError: m.IsError}
}

// matches reports whether m is, field by field, the message e encoded.
// Comparing strings that share their bytes costs nothing, so a match is
// cheap whatever the text's size; tool calls and images are summed again.
// This is the check of a message nobody vouched for: an unchanged message
// of a conversation whose caller says so (llm.Request.Unchanged) is never
// looked at.
func (e *entry[V]) matches(m *llm.Message) bool {
	return e.role == m.Role && same(e.content, m.Content) && same(e.reasoning, m.Reasoning) &&
		same(e.callID, m.ToolCallID) && same(e.name, m.Name) && e.isError == m.IsError &&
		int(e.ncalls) == len(m.ToolCalls) && int(e.nimages) == len(m.Images) &&
		(e.ncalls == 0 || sumCalls(m.ToolCalls) == e.calls) &&
		(e.nimages == 0 || sumImages(m.Images) == e.images) && sameBlocks(e.blocks, m.ReasoningBlocks)
}

// sameBlocks reports whether two lists of reasoning blocks are equal.
func sameBlocks(a, b []llm.ReasoningBlock) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.After != y.After || !same(x.Provider, y.Provider) || !same(x.Type, y.Type) || !same(x.Text, y.Text) ||
			!same(x.Signature, y.Signature) || !same(x.Data, y.Data) {
			return false
		}
	}
	return true
}

// same reports whether a and b are equal, without a call when they share
// their bytes (the usual case: a message's text is held, not copied).
func same(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// sumCalls sums what an encoding depends on in calls: each id, name and
// input (a nil input apart from an empty one), with FNV-1a. The sum is
// there to notice a change the caller made in place, not to resist one
// crafted against it (nothing outside the process writes this memory): a
// change of one byte always changes it, and keeping a copy of every input
// instead cost more memory than the input itself.
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

var imageSeed = maphash.MakeSeed()

// sumImages stands for the images' types and bytes: keeping a copy of every
// image would double the memory a session's pictures take, and a hash of a
// few megabytes costs well under a millisecond.
func sumImages(imgs []llm.Image) uint64 {
	if len(imgs) == 0 {
		return 0
	}
	var h maphash.Hash
	h.SetSeed(imageSeed)
	var size [8]byte
	for _, im := range imgs {
		_, _ = h.WriteString(im.MediaType)
		binary.LittleEndian.PutUint64(size[:], uint64(len(im.Data)))
		_ = h.WriteByte(0)
		_, _ = h.Write(size[:])
		_, _ = h.Write(im.Data)
	}
	return h.Sum64()
}
