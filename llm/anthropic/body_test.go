package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/internal/llmtest"
)

// history is a multi-turn conversation with text, parallel tool calls,
// empty and malformed arguments, error results, user text after tool
// results, an empty user message and characters JSON escapes.
func history() []llm.Message {
	return []llm.Message{
		{Role: llm.RoleUser, Content: "fix the bug <in> a & b"},
		{Role: llm.RoleAssistant, Content: "Reading both.", Reasoning: "hmm", ToolCalls: []llm.ToolCall{
			{ID: "toolu_1", Name: "read_file", Input: json.RawMessage(`{"path":"a.go"}`)},
			{ID: "toolu_2", Name: "list_files", Input: json.RawMessage(``)},
			{ID: "toolu_3", Name: "glob", Input: json.RawMessage(`{"pattern":`)},
		}},
		{Role: llm.RoleTool, ToolCallID: "toolu_1", Name: "read_file", Content: "package a\n\"x\"\tü"},
		{Role: llm.RoleTool, ToolCallID: "toolu_2", Name: "list_files", Content: "not a directory", IsError: true},
		{Role: llm.RoleTool, ToolCallID: "toolu_3", Name: "glob", Content: "", IsError: true},
		{Role: llm.RoleUser, Content: "also run the tests"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			{ID: "toolu_4", Name: "bash", Input: json.RawMessage(`{ "command": "go test ./..." }`)},
		}},
		{Role: llm.RoleTool, ToolCallID: "toolu_4", Name: "bash", Content: "ok"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			{ID: "toolu_5", Name: "read_file", Input: json.RawMessage(`{"path":"a.png"}`)},
			{ID: "toolu_6", Name: "read_file", Input: json.RawMessage(`{"path":"b.webp"}`)},
		}},
		{Role: llm.RoleTool, ToolCallID: "toolu_5", Name: "read_file", Content: "Attached a.png.",
			Images: []llm.Image{{MediaType: "image/png", Data: []byte("\x89PNG fake"), Name: "a.png"}}},
		{Role: llm.RoleTool, ToolCallID: "toolu_6", Name: "read_file",
			Images: []llm.Image{{MediaType: "image/webp", Data: []byte("RIFF....WEBP")}}},
		{Role: llm.RoleUser, Content: "and <these>?", Images: []llm.Image{
			{MediaType: "image/jpeg", Data: []byte{0xff, 0xd8, 0xff, 0, 1, 2}},
			{MediaType: "image/gif", Data: []byte("GIF89a")},
		}},
		{Role: llm.RoleAssistant, Content: "A cat."},
		{Role: llm.RoleUser, Images: []llm.Image{{MediaType: "image/png", Data: []byte("only an image")}}},
		{Role: llm.RoleAssistant, Content: "All green."},
		{Role: llm.RoleUser, Content: ""},
		{Role: llm.RoleAssistant},
		{Role: llm.RoleUser, Content: "thanks"},
	}
}

var testTools = []llm.ToolDef{
	{Name: "read_file", Description: "Read a <file>.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false,"$defs":{"x":{}}}`)},
	{Name: "noschema"},
	{Name: "nullschema", Description: "null", InputSchema: json.RawMessage(`null`)},
	{Name: "odd", Description: "odd required", InputSchema: json.RawMessage(`{"required":["a",1],"properties":null}`)},
	{Name: "noreq", Description: "no names", InputSchema: json.RawMessage(`{"type":"object","required":[]}`)},
}

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
	for _, cache := range []bool{true, false} {
		t.Run(fmt.Sprintf("cache=%v", cache), func(t *testing.T) {
			p := New(WithAPIKey(""), WithBaseURL("http://unused.invalid"), WithPromptCache(cache))
			msgs := history()
			// Turn by turn, as an agent grows its history: later requests
			// reuse cached encodings and must still match.
			for n := 0; n <= len(msgs); n++ {
				for _, system := range []string{"", "You are <harness9>."} {
					req := llm.Request{Model: "claude-sonnet-4-5", System: system, Messages: msgs[:n],
						Tools: testTools[:n%(len(testTools)+1)], MaxTokens: 100 * n % 300}
					got, err := bodyBytes(p, req)
					if err != nil {
						t.Fatal(err)
					}
					if g, w := decoded(t, got), reference(t, p, req); !reflect.DeepEqual(g, w) {
						wj, _ := json.Marshal(w)
						t.Fatalf("%d messages, system %q:\n got %s\nwant %s", n, system, got, wj)
					}
				}
			}
		})
	}
}

func TestBodyNoticesInPlaceChanges(t *testing.T) {
	p := New(WithAPIKey(""), WithBaseURL("http://unused.invalid"))
	msgs := history()
	req := llm.Request{Model: "m", Messages: msgs}
	if _, err := bodyBytes(p, req); err != nil {
		t.Fatal(err)
	}
	msgs[1].ToolCalls[0].Input[2] = 'P'
	msgs[3].IsError = false
	msgs[9].Images[0].Data[0] = 'Q'
	msgs[11].Images = msgs[11].Images[1:]
	got, err := bodyBytes(p, req)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := decoded(t, got), reference(t, p, req); !reflect.DeepEqual(g, w) {
		wj, _ := json.Marshal(w)
		t.Fatalf("after in-place changes:\n got %s\nwant %s", got, wj)
	}
}

func TestBodyErrors(t *testing.T) {
	p := New(WithAPIKey(""), WithBaseURL("http://unused.invalid"))
	_, err := bodyBytes(p, llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser}, {Role: "robot"}}})
	if err == nil || err.Error() != `message 1: unknown role "robot"` {
		t.Errorf("unknown role: %v", err)
	}
	_, err = bodyBytes(p, llm.Request{Model: "m", Tools: []llm.ToolDef{{Name: "x", InputSchema: json.RawMessage(`[1]`)}}})
	if err == nil {
		t.Error("a schema that is not an object was accepted")
	}
}

// bodyBytes builds req's body and returns a copy of it.
func bodyBytes(p *Provider, req llm.Request) ([]byte, error) {
	b, _, err := p.body(req)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	return bytes.Clone(b.Bytes()), nil
}

// A body built on the previous one (the conversation grown, edited,
// truncated, compacted, interleaved with another) is exactly the body a
// provider that never saw the earlier requests builds, with and without
// the prompt cache's markers, however the messages are handed over (see
// the OpenAI test).
//
// The histories carry thinking blocks of this provider and of others, and
// switch the effort (thinking on and off) now and then; seeds 4 and 5
// build Vertex AI's bodies.
func TestResumedBodyIsTheFreshBody(t *testing.T) {
	for _, sharing := range []llmtest.Sharing{llmtest.Copies, llmtest.InPlace, llmtest.Promised} {
		t.Run(sharing.String(), func(t *testing.T) {
			for seed := range uint64(6) {
				opts := []Option{WithAPIKey(""), WithBaseURL("http://unused.invalid"), WithPromptCache(seed%2 == 0)}
				if seed >= 4 {
					opts = append(opts, WithVertex("proj", "us-east5", staticToken("t")))
				}
				p := New(opts...)
				llmtest.CheckResumedBodies(t, seed, 400, sharing, func(req llm.Request) (llmtest.Body, error) {
					req.Tools = testTools
					b, _, err := p.body(req)
					return b, err
				}, func(req llm.Request) ([]byte, error) {
					req.Tools = testTools
					req.Unchanged = 0
					return bodyBytes(New(opts...), req)
				})
			}
		})
	}
}
