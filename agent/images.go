package agent

import (
	"fmt"
	"unsafe"

	"github.com/harness9/harness9/llm"
)

// Default limits of WithRequestImages: below what the providers accept in
// one request (Anthropic: 100 images and 32 MB a request; OpenAI: 50 MB),
// with room left for the text.
const (
	DefaultRequestImages     = 20
	DefaultRequestImageBytes = 16 << 20
)

// imageBudget leaves the oldest images of a history out of a model request
// once the request would carry more than max images or more than maxBytes
// of them. Every screenshot a session takes stays in every later request
// otherwise, until the provider refuses the request and the session can go
// no further. The stored history keeps every image; a message that lost its
// images in the request says so in its text.
//
// The stand-ins are kept between calls, so a message that lost its images
// is the same message (the same text) in every later request, and the
// providers' encodings and request bodies are reused for it (llm/internal
// /reqcache). Like shapeMemo, it trusts the first n messages of the same
// backing array not to have changed.
type imageBudget struct {
	max, maxBytes int

	base       *llm.Message
	n          int // messages counted in count and bytes
	count      int
	bytes      int
	stand      map[*byte]standIn // by the first image's bytes
	out        []llm.Message
	cut, outOf int // out holds msgs[:outOf] with images left out up to cut
}

// request returns msgs, or a copy of them whose oldest images are left
// out to keep within the budget, and how many of the returned slice's
// leading messages it did not write this time (all of them when it
// returns msgs).
func (b *imageBudget) request(msgs []llm.Message) ([]llm.Message, int) {
	if b.max <= 0 && b.maxBytes <= 0 || len(msgs) == 0 {
		return msgs, len(msgs)
	}
	if &msgs[0] != b.base || len(msgs) < b.n {
		// A new history (compacted, reloaded, repaired): count it afresh.
		// The stand-ins go too, so they keep no dropped history's images
		// alive.
		b.base, b.n, b.count, b.bytes, b.outOf = &msgs[0], 0, 0, 0, 0
		b.stand = nil
	}
	for _, m := range msgs[b.n:] {
		b.count += len(m.Images)
		for _, im := range m.Images {
			b.bytes += len(im.Data)
		}
	}
	b.n = len(msgs)
	if !b.over(b.count, b.bytes) {
		return msgs, len(msgs)
	}
	// The newest images that fit; every message up to cut loses its own.
	cut, count, size := -1, 0, 0
	for i := len(msgs) - 1; i >= 0 && cut < 0; i-- {
		for _, im := range msgs[i].Images {
			count++
			size += len(im.Data)
		}
		if b.over(count, size) {
			cut = i
		}
	}
	from := 0
	if cut == b.cut && b.outOf > 0 && b.outOf <= len(msgs) {
		from = b.outOf // the earlier messages are as last time
	}
	b.out = append(b.out[:from], msgs[from:]...)
	for i := from; i <= cut; i++ {
		if len(b.out[i].Images) > 0 {
			b.out[i] = b.standIn(b.out[i])
		}
	}
	b.cut, b.outOf = cut, len(msgs)
	return b.out[:len(msgs):len(msgs)], from
}

func (b *imageBudget) over(count, size int) bool {
	return (b.max > 0 && count > b.max) || (b.maxBytes > 0 && size > b.maxBytes)
}

// standIn is a message's stand-in and the message it stands in for.
type standIn struct {
	of     llm.Message // without its images
	images int
	msg    llm.Message
}

// standIn returns m without its images, saying what was left out; the same
// message gets the same stand-in every time. The first image's bytes only
// find the stand-in: two messages may carry the same picture (a client
// attaching it to two prompts), so the rest of the message must match too.
func (b *imageBudget) standIn(m llm.Message) llm.Message {
	key := unsafe.SliceData(m.Images[0].Data)
	if s, ok := b.stand[key]; ok && key != nil && s.of.Role == m.Role && s.of.ToolCallID == m.ToolCallID &&
		s.of.Content == m.Content && s.images == len(m.Images) {
		return s.msg
	}
	what := "1 image"
	if len(m.Images) > 1 {
		what = fmt.Sprintf("%d images", len(m.Images))
	}
	note := "[" + what + " left out of this request: the conversation holds more images than one request may carry, so only the newest are sent]"
	if m.Content != "" {
		note = m.Content + "\n" + note
	}
	s := m
	s.Content, s.Images = note, nil
	if b.stand == nil {
		b.stand = map[*byte]standIn{}
	}
	if key != nil {
		of := m
		of.Images = nil
		b.stand[key] = standIn{of: of, images: len(m.Images), msg: s}
	}
	return s
}
