// Package scripted is a deterministic llm.Provider that plays a script of
// turns instead of calling a model. It needs no key and no network, so it
// drives `harness9 demo`, harness9's own tests, and the tests users write for
// their own agents.
//
// A script is a list of Turns, one per model call:
//
//	p := scripted.New(
//		scripted.Turn{Text: "Let me look.", Calls: []llm.ToolCall{
//			scripted.Call("read_file", map[string]any{"path": "go.mod"}),
//		}},
//		scripted.Turn{Text: "It is a Go module.", Match: scripted.LastToolResultContains("module")},
//	)
//
// Each call to Stream records the request (Requests), takes the next turn,
// checks the turn's Match against the request, and streams the turn's
// reasoning, text (in chunks), tool calls, usage and a stop chunk. A turn
// whose Match rejects the request, and a request after the last turn, end
// the stream with an error that names the turn and summarises the request,
// so a failing test says which expectation was not met.
package scripted

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/harness9/harness9/llm"
)

// DefaultChunkSize is how many runes of text a turn streams per chunk when
// its ChunkSize is zero.
const DefaultChunkSize = 16

// Matcher decides whether a turn may answer a request.
type Matcher func(llm.Request) bool

// Turn is one scripted model call.
type Turn struct {
	// Name labels the turn in error messages; the turn's number is used
	// when empty.
	Name string
	// Text is the visible assistant text, streamed in chunks.
	Text string
	// Reasoning is streamed as reasoning chunks before Text.
	Reasoning string
	// Calls are the tool calls the turn makes, sent after the text. Calls
	// with an empty ID get a deterministic one ("call_<turn>_<n>").
	Calls []llm.ToolCall
	// Usage is reported in a usage chunk when non-zero.
	Usage llm.Usage
	// Stop overrides the stop reason (default end_turn, or tool_use when
	// the turn has calls).
	Stop llm.StopReason
	// Err ends the stream with this error after Reasoning and Text have been
	// streamed (use empty Text for an immediate failure). Calls, Usage and
	// the stop chunk are not sent.
	Err error
	// Match, when set, must accept the request for the turn to be played.
	// A rejected turn is not consumed; the stream fails with an error.
	Match Matcher
	// Respond, when set, builds the turn from the request at play time;
	// the returned turn's Text, Reasoning, Calls, Usage, Stop and Err are
	// used. Use it for long or computed scripts.
	Respond func(llm.Request) Turn
	// ChunkSize is the number of runes per text chunk (DefaultChunkSize
	// when zero, the whole text in one chunk when negative).
	ChunkSize int
	// Delay is waited before each chunk, honouring cancellation.
	Delay time.Duration
	// Hang, after the text has been streamed, blocks until the request's
	// context is done and then fails with its error: a model that never
	// answers, for cancellation tests.
	Hang bool
}

// Provider plays a script. It is safe for concurrent use; concurrent
// streams take turns in the order they start.
type Provider struct {
	mu       sync.Mutex
	turns    []Turn
	next     int
	requests []llm.Request
}

// New returns a provider that plays turns in order.
func New(turns ...Turn) *Provider {
	return &Provider{turns: append([]Turn(nil), turns...)}
}

// Name returns "scripted".
func (p *Provider) Name() string { return "scripted" }

// Add appends turns to the end of the script.
func (p *Provider) Add(turns ...Turn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.turns = append(p.turns, turns...)
}

// Remaining returns how many turns have not been played yet.
func (p *Provider) Remaining() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.turns) - p.next
}

// Requests returns a deep copy of every request received so far, in order,
// including requests that failed to match.
func (p *Provider) Requests() []llm.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]llm.Request, len(p.requests))
	for i, r := range p.requests {
		out[i] = cloneRequest(r)
	}
	return out
}

// LastRequest returns a copy of the most recent request, and false if there
// was none.
func (p *Provider) LastRequest() (llm.Request, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.requests) == 0 {
		return llm.Request{}, false
	}
	return cloneRequest(p.requests[len(p.requests)-1]), true
}

// Stream plays the next turn of the script.
func (p *Provider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		turn, index, err := p.take(req)
		if err != nil {
			yield(llm.Chunk{}, err)
			return
		}
		play(ctx, turn, index, yield)
	}
}

// take records req and returns the turn to play with its 1-based number.
func (p *Provider) take(req llm.Request) (Turn, int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, cloneRequest(req))
	n := len(p.requests)
	if p.next >= len(p.turns) {
		return Turn{}, 0, fmt.Errorf("scripted: request %d has no turn left to play (the script has %d turns); %s",
			n, len(p.turns), describe(req))
	}
	index := p.next + 1
	t := p.turns[p.next]
	if t.Match != nil && !t.Match(req) {
		return Turn{}, 0, fmt.Errorf("scripted: turn %s does not match request %d; %s", label(t, index), n, describe(req))
	}
	p.next++
	return resolve(t, req), index, nil
}

// resolve applies a turn's Respond function, if any, to the request.
func resolve(t Turn, req llm.Request) Turn {
	if t.Respond != nil {
		r := t.Respond(cloneRequest(req))
		t.Text, t.Reasoning, t.Calls, t.Usage, t.Stop, t.Err = r.Text, r.Reasoning, r.Calls, r.Usage, r.Stop, r.Err
	}
	return t
}

// play streams one turn. It stops when the consumer stops or ctx ends.
func play(ctx context.Context, t Turn, index int, yield func(llm.Chunk, error) bool) {
	send := func(c llm.Chunk) bool {
		if err := wait(ctx, t.Delay); err != nil {
			yield(llm.Chunk{}, err)
			return false
		}
		return yield(c, nil)
	}
	for _, s := range split(t.Reasoning, t.ChunkSize) {
		if !send(llm.Chunk{Kind: llm.ChunkReasoning, Text: s}) {
			return
		}
	}
	for _, s := range split(t.Text, t.ChunkSize) {
		if !send(llm.Chunk{Kind: llm.ChunkText, Text: s}) {
			return
		}
	}
	if t.Hang {
		<-ctx.Done()
		yield(llm.Chunk{}, ctx.Err())
		return
	}
	if t.Err != nil {
		yield(llm.Chunk{}, t.Err)
		return
	}
	for i, c := range t.Calls {
		c.Input = append(json.RawMessage(nil), c.Input...)
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d_%d", index, i+1)
		}
		if !send(llm.Chunk{Kind: llm.ChunkToolCall, ToolCall: &c}) {
			return
		}
	}
	if t.Usage != (llm.Usage{}) {
		u := t.Usage
		if !send(llm.Chunk{Kind: llm.ChunkUsage, Usage: &u}) {
			return
		}
	}
	stop := t.Stop
	if stop == "" {
		stop = llm.StopEndTurn
		if len(t.Calls) > 0 {
			stop = llm.StopToolUse
		}
	}
	send(llm.Chunk{Kind: llm.ChunkStop, StopReason: stop})
}

// wait sleeps d (not at all when zero) unless ctx ends first.
func wait(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// split cuts s into pieces of size runes.
func split(s string, size int) []string {
	if s == "" {
		return nil
	}
	if size == 0 {
		size = DefaultChunkSize
	}
	if size < 0 {
		return []string{s}
	}
	var out []string
	for len(s) > 0 {
		i, n := 0, 0
		for i < len(s) && n < size {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
			n++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

func label(t Turn, index int) string {
	if t.Name != "" {
		return fmt.Sprintf("%d (%q)", index, t.Name)
	}
	return fmt.Sprint(index)
}

// describe summarises a request for error messages.
func describe(req llm.Request) string {
	names := make([]string, len(req.Tools))
	for i, t := range req.Tools {
		names[i] = t.Name
	}
	last := "none"
	if m, ok := lastOf(req, llm.RoleUser); ok {
		last = fmt.Sprintf("%q", clip(m.Content, 120))
	}
	images := 0
	for _, m := range req.Messages {
		images += len(m.Images)
	}
	return fmt.Sprintf("the request has %d messages (%d images), tools [%s], last user message %s",
		len(req.Messages), images, strings.Join(names, ", "), last)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func cloneRequest(r llm.Request) llm.Request {
	out := r
	out.Messages = make([]llm.Message, len(r.Messages))
	for i, m := range r.Messages {
		if m.ToolCalls != nil {
			calls := make([]llm.ToolCall, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				c.Input = append(json.RawMessage(nil), c.Input...)
				calls[j] = c
			}
			m.ToolCalls = calls
		}
		if m.Images != nil {
			imgs := make([]llm.Image, len(m.Images))
			for j, im := range m.Images {
				im.Data = append([]byte(nil), im.Data...)
				imgs[j] = im
			}
			m.Images = imgs
		}
		out.Messages[i] = m
	}
	if r.Tools != nil {
		out.Tools = make([]llm.ToolDef, len(r.Tools))
		for i, t := range r.Tools {
			t.InputSchema = append(json.RawMessage(nil), t.InputSchema...)
			out.Tools[i] = t
		}
	}
	return out
}
