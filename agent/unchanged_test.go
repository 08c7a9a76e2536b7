package agent_test

import (
	"context"
	"encoding/json"
	"iter"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
)

// promiseChecker is a provider that holds the engine to its promise
// (llm.Request.Unchanged): the messages a request says are unchanged are,
// at the same positions of the same array, what the previous request sent,
// as a deep copy taken then shows.
type promiseChecker struct {
	llm.Provider
	t        *testing.T
	base     *llm.Message
	sent     []llm.Message
	promised int // requests that promised at least one message
	requests int
}

func (p *promiseChecker) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	p.requests++
	if u := req.Unchanged; u > 0 {
		p.promised++
		switch {
		case u > len(req.Messages) || u > len(p.sent):
			p.t.Errorf("request %d promises %d messages unchanged; it has %d, the previous one had %d", p.requests, u, len(req.Messages), len(p.sent))
		case &req.Messages[0] != p.base:
			p.t.Errorf("request %d promises %d messages unchanged in another array than the previous request's", p.requests, u)
		default:
			for i := range u {
				if !reflect.DeepEqual(req.Messages[i], p.sent[i]) {
					p.t.Errorf("request %d promises message %d unchanged, but it is\n%+v\nwhere the previous request sent\n%+v", p.requests, i, req.Messages[i], p.sent[i])
					break
				}
			}
		}
	}
	p.base, p.sent = nil, deepCopy(req.Messages)
	if len(req.Messages) > 0 {
		p.base = &req.Messages[0]
	}
	return p.Provider.Stream(ctx, req)
}

func deepCopy(msgs []llm.Message) []llm.Message {
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		if m.ToolCalls != nil {
			m.ToolCalls = append([]llm.ToolCall(nil), m.ToolCalls...)
			for j := range m.ToolCalls {
				m.ToolCalls[j].Input = append(json.RawMessage(nil), m.ToolCalls[j].Input...)
			}
		}
		if m.Images != nil {
			m.Images = append([]llm.Image(nil), m.Images...)
			for j := range m.Images {
				m.Images[j].Data = append([]byte(nil), m.Images[j].Data...)
			}
		}
		m.ReasoningBlocks = append([]llm.ReasoningBlock(nil), m.ReasoningBlocks...)
		if len(m.ReasoningBlocks) == 0 {
			m.ReasoningBlocks = msgs[i].ReasoningBlocks
		}
		out[i] = m
	}
	return out
}

// The engine promises its provider the messages it sent before and has not
// touched since, so that a turn costs what it added; a message it rewrote
// since (a picture over the request's budget left out in place) is never
// among them. Two runs of one engine: the second continues the history.
func TestRequestsPromiseOnlyUnchangedMessages(t *testing.T) {
	pic := testPNG(t)
	var turns []scripted.Turn
	read := func(n int, path string) {
		for range n {
			turns = append(turns, scripted.Turn{Calls: scripted.Calls(scripted.Call("read_file", map[string]any{"path": path}))})
		}
	}
	read(12, "notes.txt")
	read(6, "shot.png")
	turns = append(turns, scripted.Turn{Text: "seen them"})
	read(12, "notes.txt")
	turns = append(turns, scripted.Turn{Text: "read them"})
	h := newHarness(t, turns...)
	if err := os.WriteFile(filepath.Join(h.dir, "shot.png"), pic, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.dir, "notes.txt"), []byte("some notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	check := &promiseChecker{Provider: h.p, t: t}
	e, err := agent.New(check, agent.WithModel("test-model"), agent.WithWorkdir(h.dir), agent.WithPlanFiles(h.home),
		agent.WithStore(h.store), agent.WithTools(h.tools()...), agent.WithVision(true), agent.WithRequestImages(3, 0))
	if err != nil {
		t.Fatal(err)
	}
	for _, prompt := range []string{"read them all", "and the notes again"} {
		if d := doneOf(drain(t, e.Run(context.Background(), prompt))); d.Status != agent.RunCompleted {
			t.Fatalf("done = %+v", d)
		}
	}
	// Most requests add a turn to the one before: they promise something.
	if check.requests != 32 || check.promised < check.requests/2 {
		t.Fatalf("%d of %d requests promised unchanged messages", check.promised, check.requests)
	}
}
