package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/harness9/harness9/llm"
)

// Histories yields a sequence of n requests the way agents make them, and
// the ways they stop doing so: a conversation that grows by a turn, a
// message changed in place (text replaced, a tool call's input bytes
// rewritten), messages dropped from the end, the history replaced by a
// summary and its tail (compaction), a second conversation interleaved with
// the first, a new system prompt, model or token limit. Tool results carry
// images now and then, and some messages are empty. The same seed gives the
// same sequence. Each request shares its messages' bytes with the later
// ones, as an engine's history does, so a change in place reaches the
// caller only after it has used the earlier request. Each request holds
// its own copy of the messages; HistoriesShared hands them over otherwise.
func Histories(seed uint64, n int) iter.Seq[llm.Request] {
	return HistoriesShared(seed, n, Copies)
}

// Sharing is how HistoriesShared hands a conversation's messages over.
type Sharing int

const (
	// Copies: each request holds its own copy of the messages.
	Copies Sharing = iota
	// InPlace: each request holds the conversation's own array, which
	// grows, shrinks and is edited in place, as an agent's history is; no
	// request promises anything.
	InPlace
	// Promised: InPlace, each request saying in Unchanged how many of its
	// leading messages are, untouched, those its conversation's previous
	// request sent from the same array: what an agent's engine promises.
	Promised
)

func (s Sharing) String() string {
	return [...]string{"copies", "in place", "promised"}[s]
}

// HistoriesShared is Histories with the messages handed over as sharing
// says.
func HistoriesShared(seed uint64, n int, sharing Sharing) iter.Seq[llm.Request] {
	return func(yield func(llm.Request) bool) {
		histories(seed, n, sharing, yield)
	}
}

// conv is one conversation of histories and what its previous request
// sent: the array and how many of its leading messages are untouched since.
type conv struct {
	llm.Request
	sent *llm.Message
	same int
}

// touched notes that message i changed in place.
func (c *conv) touched(i int) { c.same = min(c.same, i) }

func histories(seed uint64, n int, sharing Sharing, yield func(llm.Request) bool) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	convs := [2]conv{
		{Request: llm.Request{Model: "model-a", System: "You are a careful agent.", MaxTokens: 1024, Effort: llm.EffortMedium}},
		{Request: llm.Request{Model: "model-b", System: "", MaxTokens: 0}},
	}
	call := 0
	turn := func(c *conv) {
		switch r.IntN(5) {
		case 0:
			text := fmt.Sprintf("user says %d <&> \"quoted\"", r.IntN(1000))
			if r.IntN(6) == 0 {
				text = ""
			}
			c.Messages = append(c.Messages, llm.Message{Role: llm.RoleUser, Content: text})
		case 1:
			c.Messages = append(c.Messages, llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf("thinking %d", r.IntN(100)),
				ReasoningBlocks: blocks(r, call, 0)})
		default:
			k := 1 + r.IntN(3)
			var calls []llm.ToolCall
			for range k {
				call++
				calls = append(calls, llm.ToolCall{ID: fmt.Sprintf("call_%d", call), Name: "read_file",
					Input: json.RawMessage(fmt.Sprintf(`{"path":"f%d.go"}`, call))})
			}
			text := ""
			if r.IntN(2) == 0 {
				text = "Calling tools."
			}
			c.Messages = append(c.Messages, llm.Message{Role: llm.RoleAssistant, Content: text, ToolCalls: calls,
				ReasoningBlocks: blocks(r, call, len(calls))})
			for _, tc := range calls {
				m := llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Name: tc.Name, Content: "package main " + tc.ID}
				if r.IntN(5) == 0 {
					m.Images = []llm.Image{{MediaType: "image/png", Data: []byte("\x89PNG " + tc.ID)}}
				}
				if r.IntN(8) == 0 {
					m.IsError = true
				}
				c.Messages = append(c.Messages, m)
			}
		}
	}
	cur := 0
	for made := 0; made < n; {
		c := &convs[cur]
		switch op := r.IntN(28); {
		case op < 12 || len(c.Messages) < 4:
			turn(c)
		case op == 12:
			// A message's text replaced.
			i := r.IntN(len(c.Messages))
			c.Messages[i].Content += " (edited)"
			c.touched(i)
		case op == 13:
			// A tool call's input rewritten in place: same slice, new bytes.
			for i := range c.Messages {
				if m := &c.Messages[i]; len(m.ToolCalls) > 0 && len(m.ToolCalls[0].Input) > 2 && r.IntN(3) == 0 {
					m.ToolCalls[0].Input[2] ^= 1
					c.touched(i)
					break
				}
			}
		case op == 14:
			c.Messages = c.Messages[:len(c.Messages)-1-r.IntN(min(3, len(c.Messages)-1))]
			c.touched(len(c.Messages))
		case op == 15:
			// Compaction: a summary stands in for the first messages.
			keep := c.Messages[len(c.Messages)/2:]
			c.Messages = append([]llm.Message{{Role: llm.RoleUser, Content: "Summary of the conversation so far."}}, keep...)
		case op == 16:
			c.System = fmt.Sprintf("system prompt %d", r.IntN(3))
		case op == 17:
			c.Model = fmt.Sprintf("model-%d", r.IntN(3))
			c.MaxTokens = r.IntN(3) * 512
			c.Effort = []llm.Effort{llm.EffortDefault, llm.EffortLow, llm.EffortHigh}[r.IntN(3)]
		case op == 18:
			// An image's bytes changed in place.
			for i := range c.Messages {
				if m := &c.Messages[i]; len(m.Images) > 0 && r.IntN(2) == 0 {
					m.Images[0].Data[1] ^= 1
					c.touched(i)
					break
				}
			}
		case op == 19:
			// A user message with pictures, with or without text.
			m := llm.Message{Role: llm.RoleUser, Images: []llm.Image{{MediaType: "image/jpeg", Data: fmt.Appendf(nil, "JFIF %d", r.IntN(1000))}}}
			if r.IntN(2) == 0 {
				m.Content = "look at this"
				m.Images = append(m.Images, llm.Image{MediaType: "image/png", Data: []byte("\x89PNG second")})
			}
			c.Messages = append(c.Messages, m)
		case op == 20:
			// A message with nothing to send: an empty assistant reply, or
			// an empty user message.
			role := llm.RoleAssistant
			if r.IntN(2) == 0 {
				role = llm.RoleUser
			}
			c.Messages = append(c.Messages, llm.Message{Role: role})
		case op == 21:
			// A user message slipped in among tool results (a steering
			// message stored while tools ran): the image-carrying user
			// messages the OpenAI body adds go after the tool messages.
			for i := range c.Messages {
				if c.Messages[i].Role == llm.RoleTool && r.IntN(2) == 0 {
					c.Messages = append(c.Messages[:i:i], append([]llm.Message{{Role: llm.RoleUser, Content: "steer"}}, c.Messages[i:]...)...)
					break
				}
			}
		case op == 22:
			// A field other than the text changed in place.
			i := r.IntN(len(c.Messages))
			m := &c.Messages[i]
			c.touched(i)
			switch r.IntN(4) {
			case 0:
				m.IsError = !m.IsError
			case 1:
				m.ToolCallID += "x"
			case 2:
				m.Name += "x"
			case 3:
				m.Reasoning += "hmm"
			}
		case op == 26 && r.IntN(2) == 0:
			// A reasoning block rewritten in place, or dropped.
			for i := range c.Messages {
				if m := &c.Messages[i]; len(m.ReasoningBlocks) > 0 && r.IntN(2) == 0 {
					if r.IntN(2) == 0 {
						m.ReasoningBlocks[0].Signature += "x"
					} else {
						m.ReasoningBlocks = m.ReasoningBlocks[1:]
					}
					c.touched(i)
					break
				}
			}
		case op == 23:
			// A picture added to an existing message, or its type changed.
			i := r.IntN(len(c.Messages))
			m := &c.Messages[i]
			c.touched(i)
			if len(m.Images) > 0 && r.IntN(2) == 0 {
				m.Images[0].MediaType = "image/webp"
			} else if m.Role == llm.RoleUser || m.Role == llm.RoleTool {
				m.Images = append(m.Images, llm.Image{MediaType: "image/gif", Data: []byte("GIF89a added")})
			}
		case op == 24:
			// The whole history dropped (a new session on the provider).
			c.Messages = c.Messages[:0:0]
		case op == 25 || op == 26:
			// The same history sent again (a retry by the caller).
		default:
			cur = 1 - cur
			continue
		}
		req := c.Request
		switch {
		case sharing == Copies:
			req.Messages = append([]llm.Message(nil), c.Messages...)
		case sharing == Promised && len(c.Messages) > 0 && &c.Messages[0] == c.sent:
			req.Unchanged = min(c.same, len(c.Messages))
		}
		c.sent, c.same = nil, len(c.Messages)
		if len(c.Messages) > 0 {
			c.sent = &c.Messages[0]
		}
		made++
		if !yield(req) {
			return
		}
	}
}

// Body is a request body as a provider builds it.
type Body interface {
	Bytes() []byte
	Release()
}

// CheckResumedBodies builds the body of every request HistoriesShared(seed,
// n, sharing) yields with build, a provider that keeps its state between calls, and
// checks each is byte for byte the body fresh builds with a provider that
// never saw an earlier request. Now and then a body is held past the next
// call, as a transport still sending it would. It fails t unless at least
// a quarter of the bodies were built in the previous one's buffer, so that
// reuse is what was tested.
func CheckResumedBodies(t testing.TB, seed uint64, n int, sharing Sharing, build func(llm.Request) (Body, error), fresh func(llm.Request) ([]byte, error)) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	type holding struct {
		b    Body
		want []byte
	}
	var held []holding
	release := func(h holding) {
		if !bytes.Equal(h.b.Bytes(), h.want) {
			t.Fatalf("a body changed while held: a later call reused it")
		}
		h.b.Release()
	}
	var prev *byte
	reused, i := 0, 0
	for req := range HistoriesShared(seed, n, sharing) {
		want, err := fresh(req)
		if err != nil {
			t.Fatalf("request %d: fresh body: %v", i, err)
		}
		b, err := build(req)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if got := b.Bytes(); !bytes.Equal(got, want) {
			t.Fatalf("request %d (%d messages): body differs from a fresh provider's\n got: %s\nwant: %s", i, len(req.Messages), got, want)
		}
		if p := unsafe.SliceData(b.Bytes()); p == prev {
			reused++
		} else {
			prev = p
		}
		if r.IntN(6) == 0 {
			held = append(held, holding{b, want})
		} else {
			b.Release()
		}
		if len(held) > 0 && r.IntN(3) == 0 {
			release(held[0])
			held = held[1:]
		}
		i++
	}
	for _, h := range held {
		release(h)
	}
	if reused < n/4 {
		t.Fatalf("only %d of %d bodies reused the previous body's buffer", reused, n)
	}
}

// providers names the providers whose reasoning blocks a history holds: a
// provider under test sends back those it issued itself, under the name
// each test gives it, and leaves out the others.
var providers = []string{"openai", "anthropic", "responses", "other"}

// blocks returns the reasoning blocks of an assistant message with calls
// tool calls, now and then none: thinking (signed), redacted thinking and
// Responses reasoning items, some between the calls.
func blocks(r *rand.Rand, seq, calls int) []llm.ReasoningBlock {
	if r.IntN(3) == 0 {
		return nil
	}
	var out []llm.ReasoningBlock
	for k := range 1 + r.IntN(3) {
		prov := providers[r.IntN(len(providers))]
		b := llm.ReasoningBlock{Provider: prov, After: min(k, calls)}
		switch r.IntN(3) {
		case 0:
			b.Type, b.Text, b.Signature = "thinking", fmt.Sprintf("I should look <%d> & \"see\"", seq), fmt.Sprintf("sig%d==", seq)
		case 1:
			b.Type, b.Data = "redacted_thinking", fmt.Sprintf("opaque%d", seq)
		default:
			b.Type, b.Data = "reasoning", fmt.Sprintf(`{"type":"reasoning","id":"rs_%d","summary":[],"encrypted_content":"enc%d"}`, seq, k)
		}
		out = append(out, b)
	}
	return out
}
