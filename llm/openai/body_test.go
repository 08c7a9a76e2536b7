package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/internal/llmtest"
	"github.com/harness9/harness9/llm/internal/reqcache"
)

// history is a multi-turn conversation with text, parallel tool calls,
// empty and malformed arguments, an error result and characters JSON
// escapes.
func history() []llm.Message {
	return []llm.Message{
		{Role: llm.RoleUser, Content: "list the go files <and> fix & test"},
		{Role: llm.RoleAssistant, Content: "Looking.", Reasoning: "secret thoughts", ToolCalls: []llm.ToolCall{
			{ID: "call_1", Name: "glob", Input: json.RawMessage(`{"pattern":"*.go"}`)},
			{ID: "call_2", Name: "list_files", Input: nil},
		}},
		{Role: llm.RoleTool, ToolCallID: "call_1", Name: "glob", Content: "main.go\n\"quoted\"\tü"},
		{Role: llm.RoleTool, ToolCallID: "call_2", Name: "list_files", Content: "no such dir", IsError: true},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			{ID: "call_3", Name: "read_file", Input: json.RawMessage(`{"path": "main.go" }`)},
		}},
		{Role: llm.RoleTool, ToolCallID: "call_3", Name: "read_file", Content: ""},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			{ID: "call_5", Name: "read_file", Input: json.RawMessage(`{"path":"a.png"}`)},
			{ID: "call_6", Name: "read_file", Input: json.RawMessage(`{"path":"b.gif"}`)},
			{ID: "call_7", Name: "glob", Input: json.RawMessage(`{"pattern":"*"}`)},
		}},
		{Role: llm.RoleTool, ToolCallID: "call_5", Name: "read_file", Content: "Attached a.png (PNG, 2×1).",
			Images: []llm.Image{{MediaType: "image/png", Data: []byte("\x89PNG fake"), Name: "a.png"}}},
		{Role: llm.RoleTool, ToolCallID: "call_6", Name: "read_file", Content: "Attached b.gif.",
			Images: []llm.Image{{MediaType: "image/gif", Data: []byte("GIF89a"), Name: "b.gif"}}},
		{Role: llm.RoleTool, ToolCallID: "call_7", Name: "glob", Content: "a.png\nb.gif"},
		{Role: llm.RoleUser, Content: "and these two <pictures>?", Images: []llm.Image{
			{MediaType: "image/jpeg", Data: []byte{0xff, 0xd8, 0xff, 0, 1, 2}},
			{MediaType: "image/webp", Data: []byte("RIFF....WEBP")},
		}},
		{Role: llm.RoleUser, Images: []llm.Image{{MediaType: "image/png", Data: []byte("only an image")}}},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			{ID: "call_4", Name: "bash", Input: json.RawMessage(`{"command": "go test`)},
		}},
		{Role: llm.RoleTool, ToolCallID: "call_4", Name: "bash", Content: "invalid arguments", IsError: true},
		{Role: llm.RoleAssistant, Content: "Done."},
		{Role: llm.RoleUser, Content: ""},
	}
}

var benchTools = []llm.ToolDef{
	{Name: "glob", Description: "Find files by pattern.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string","description":"a <glob>"}},"required":["pattern"],"additionalProperties":false}`)},
	{Name: "noschema", Description: ""},
	{Name: "nullschema", Description: "null schema", InputSchema: json.RawMessage(`null`)},
}

// decoded is a JSON document decoded for comparison by meaning.
func decoded(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, raw)
	}
	return v
}

// reference is what the SDK encoded from the parameters harness9 built
// before it encoded bodies itself, with the "stream" the SDK adds.
func reference(t *testing.T, p *Provider, req llm.Request) any {
	t.Helper()
	params, err := p.referenceParams(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	v := decoded(t, raw).(map[string]any)
	v["stream"] = true
	return v
}

func TestBodyMatchesTheSDKEncoding(t *testing.T) {
	for _, name := range []string{"openai", "ollama"} {
		t.Run(name, func(t *testing.T) {
			p := New(WithName(name), WithAPIKey(""), WithBaseURL("http://unused.invalid/v1"))
			msgs := history()
			// Turn by turn, as an agent grows its history: later requests
			// reuse cached encodings and must still match.
			for n := 1; n <= len(msgs); n++ {
				req := llm.Request{Model: "gpt-4.1", System: "You are <harness9>.", Messages: msgs[:n],
					Tools: benchTools, MaxTokens: 100 * n % 300}
				got, err := bodyBytes(p, req)
				if err != nil {
					t.Fatal(err)
				}
				if g, w := decoded(t, got), reference(t, p, req); !reflect.DeepEqual(g, w) {
					t.Fatalf("%d messages:\n got %s\nwant %s", n, got, mustJSON(w))
				}
			}
		})
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestBodyNoticesInPlaceChanges(t *testing.T) {
	p := New(WithAPIKey(""), WithBaseURL("http://unused.invalid/v1"))
	msgs := history()
	req := llm.Request{Model: "m", Messages: msgs}
	if _, err := bodyBytes(p, req); err != nil {
		t.Fatal(err)
	}
	// Changed in place after it was sent: the cache must notice.
	msgs[1].ToolCalls[0].Input[2] = 'P'
	msgs[3].IsError = false
	msgs[14].Content = "Done!"
	msgs[7].Images[0].Data[0] = 'Q'
	msgs[10].Images = msgs[10].Images[:1]
	got, err := bodyBytes(p, req)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := decoded(t, got), reference(t, p, req); !reflect.DeepEqual(g, w) {
		t.Fatalf("after in-place changes:\n got %s\nwant %s", got, mustJSON(w))
	}
}

func TestBodyErrors(t *testing.T) {
	p := New(WithAPIKey(""), WithBaseURL("http://unused.invalid/v1"))
	_, err := bodyBytes(p, llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser}, {Role: "robot"}}})
	if err == nil || err.Error() != `message 1: unknown role "robot"` {
		t.Errorf("unknown role: %v", err)
	}
	_, err = bodyBytes(p, llm.Request{Model: "m", Tools: []llm.ToolDef{{Name: "x", InputSchema: json.RawMessage(`[1]`)}}})
	if err == nil {
		t.Error("a schema that is not an object was accepted")
	}
}

// BenchmarkBody compares building the body of a long session's request
// with the cache (what Stream does) against the SDK's encoding of the same
// request (what it did before).
func BenchmarkBody(b *testing.B) {
	var msgs []llm.Message
	for i := range 2000 {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Content: "Calling the tool once more.",
				ToolCalls: []llm.ToolCall{{ID: id, Name: "noop", Input: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: "noop", Content: "ok"})
	}
	req := llm.Request{Model: "gpt-4o", System: "You are harness9.", Messages: msgs, Tools: benchTools}
	p := New(WithAPIKey(""), WithBaseURL("http://unused.invalid/v1"))
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			body, err := p.body(req)
			if err != nil {
				b.Fatal(err)
			}
			body.Release()
		}
	})
	b.Run("sdk", func(b *testing.B) {
		for b.Loop() {
			params, err := p.referenceParams(req)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(params); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// bodyBytes builds req's body and returns a copy of it.
func bodyBytes(p *Provider, req llm.Request) ([]byte, error) {
	b, err := p.body(req)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	return bytes.Clone(b.Bytes()), nil
}

// A body built on the previous one (the conversation grown, edited,
// truncated, compacted, interleaved with another) is exactly the body a
// provider that never saw the earlier requests builds, whether each request
// holds a copy of its messages, the conversation's own array edited in
// place, or that array with the caller's promise of what is unchanged.
func TestResumedBodyIsTheFreshBody(t *testing.T) {
	checkResumedBodies(t, nil, (*Provider).body)
}

// checkResumedBodies runs llmtest.CheckResumedBodies on the bodies build
// makes with providers made with opts, for each way of handing messages
// over.
func checkResumedBodies(t *testing.T, opts []Option, build func(*Provider, llm.Request) (*reqcache.Body, error)) {
	opts = append([]Option{WithAPIKey(""), WithBaseURL("http://unused.invalid/v1")}, opts...)
	for _, sharing := range []llmtest.Sharing{llmtest.Copies, llmtest.InPlace, llmtest.Promised} {
		t.Run(sharing.String(), func(t *testing.T) {
			for seed := range uint64(4) {
				p := New(opts...)
				llmtest.CheckResumedBodies(t, seed, 400, sharing, func(req llm.Request) (llmtest.Body, error) {
					req.Tools = benchTools
					return build(p, req)
				}, func(req llm.Request) ([]byte, error) {
					req.Tools = benchTools
					req.Unchanged = 0
					b, err := build(New(opts...), req)
					if err != nil {
						return nil, err
					}
					defer b.Release()
					return bytes.Clone(b.Bytes()), nil
				})
			}
		})
	}
}

// Sub-agents share their parent's provider: conversations built at once
// from several goroutines each get their own bodies, never a piece of
// another's.
func TestResumedBodiesFromManyGoroutines(t *testing.T) {
	p := New(WithAPIKey(""), WithBaseURL("http://unused.invalid/v1"))
	errs := make(chan error, 4)
	for g := range uint64(4) {
		go func() {
			for req := range llmtest.HistoriesShared(100+g, 150, llmtest.Sharing(g%3)) {
				want, err := bodyBytes(New(WithAPIKey(""), WithBaseURL("http://unused.invalid/v1")), req)
				if err != nil {
					errs <- err
					return
				}
				got, err := bodyBytes(p, req)
				if err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(got, want) {
					errs <- fmt.Errorf("goroutine %d: body differs from a fresh provider's", g)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
