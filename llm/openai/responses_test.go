package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/harness9/harness9/llm"
)

// respServer answers each request with the next handler and keeps the
// bytes, paths and headers it received.
type respServer struct {
	*httptest.Server
	mu      sync.Mutex
	bodies  [][]byte
	paths   []string
	headers []http.Header
}

func newRespServer(t *testing.T, handlers ...http.HandlerFunc) *respServer {
	t.Helper()
	s := &respServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.bodies)
		s.bodies = append(s.bodies, body)
		s.paths = append(s.paths, r.URL.RequestURI())
		s.headers = append(s.headers, r.Header.Clone())
		s.mu.Unlock()
		handlers[min(n, len(handlers)-1)](w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *respServer) body(i int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[i]
}

// events answers with Responses stream events: "event: <type>" and the
// JSON, as the API writes them.
func events(evs ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		for i, e := range evs {
			var v struct{ Type string }
			_ = json.Unmarshal([]byte(e), &v)
			// Every event carries its sequence number, as the API's do.
			e = strings.Replace(e, `{"type":`, fmt.Sprintf(`{"sequence_number":%d,"type":`, i), 1)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v.Type, e)
			w.(http.Flusher).Flush()
		}
	}
}

const respHead = `"id":"resp_68af4030592c81938ec0a5fbab4a3e9f05438e46b5f69a3b","object":"response","created_at":1756315696,"model":"gpt-5-2025-08-07"`

func created() string {
	return `{"type":"response.created","response":{` + respHead + `,"status":"in_progress","output":[],"usage":null}}`
}

func completed(in, cached, out, reasoning int) string {
	return fmt.Sprintf(`{"type":"response.completed","response":{`+respHead+`,"status":"completed","error":null,"incomplete_details":null,"output":[],`+
		`"usage":{"input_tokens":%d,"input_tokens_details":{"cached_tokens":%d},"output_tokens":%d,"output_tokens_details":{"reasoning_tokens":%d},"total_tokens":%d}}}`,
		in, cached, out, reasoning, in+out)
}

// jsonString encodes s as the API does, without escaping <, > and &.
func jsonString(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSpace(buf.Bytes())
}

const encrypted1 = "gAAAAABor0A0ZXhhbXBsZS1lbmNyeXB0ZWQtcmVhc29uaW5nLTE+/=="

// reasoningItem1 is a reasoning item with a two-part summary, streamed.
func reasoningEvents(outIdx int, id, enc string, parts ...string) []string {
	evs := []string{fmt.Sprintf(`{"type":"response.output_item.added","output_index":%d,"item":{"id":%q,"type":"reasoning","summary":[]}}`, outIdx, id)}
	var summary []string
	for i, p := range parts {
		b := jsonString(p)
		evs = append(evs,
			fmt.Sprintf(`{"type":"response.reasoning_summary_part.added","item_id":%q,"output_index":%d,"summary_index":%d,"part":{"type":"summary_text","text":""}}`, id, outIdx, i),
			fmt.Sprintf(`{"type":"response.reasoning_summary_text.delta","item_id":%q,"output_index":%d,"summary_index":%d,"delta":%s}`, id, outIdx, i, b))
		summary = append(summary, `{"type":"summary_text","text":`+string(b)+`}`)
	}
	return append(evs, fmt.Sprintf(`{"type":"response.output_item.done","output_index":%d,"item":{"id":%q,"type":"reasoning","encrypted_content":%q,"summary":[%s]}}`,
		outIdx, id, enc, strings.Join(summary, ",")))
}

func textEvents(outIdx int, text string) []string {
	b := jsonString(text)
	return []string{
		fmt.Sprintf(`{"type":"response.output_item.added","output_index":%d,"item":{"id":"msg_1","type":"message","status":"in_progress","content":[],"role":"assistant"}}`, outIdx),
		fmt.Sprintf(`{"type":"response.content_part.added","item_id":"msg_1","output_index":%d,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}}`, outIdx),
		fmt.Sprintf(`{"type":"response.output_text.delta","item_id":"msg_1","output_index":%d,"content_index":0,"delta":%s,"logprobs":[]}`, outIdx, b),
		fmt.Sprintf(`{"type":"response.output_item.done","output_index":%d,"item":{"id":"msg_1","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"text":%s}],"role":"assistant"}}`, outIdx, b),
	}
}

func callEvents(outIdx int, callID, name, args string) []string {
	evs := []string{fmt.Sprintf(`{"type":"response.output_item.added","output_index":%d,"item":{"id":"fc_%d","type":"function_call","status":"in_progress","arguments":"","call_id":%q,"name":%q}}`, outIdx, outIdx, callID, name)}
	for rest := args; rest != ""; {
		k := min(4, len(rest))
		b, _ := json.Marshal(rest[:k])
		evs = append(evs, fmt.Sprintf(`{"type":"response.function_call_arguments.delta","item_id":"fc_%d","output_index":%d,"delta":%s}`, outIdx, outIdx, b))
		rest = rest[k:]
	}
	a, _ := json.Marshal(args)
	return append(evs,
		fmt.Sprintf(`{"type":"response.function_call_arguments.done","item_id":"fc_%d","output_index":%d,"arguments":%s}`, outIdx, outIdx, a),
		fmt.Sprintf(`{"type":"response.output_item.done","output_index":%d,"item":{"id":"fc_%d","type":"function_call","status":"completed","arguments":%s,"call_id":%q,"name":%q}}`, outIdx, outIdx, a, callID, name))
}

// toolTurn is a reasoning model's answer: reasoning, a note, two calls with
// a second reasoning item between them.
func toolTurn() []string {
	evs := []string{created(), `{"type":"response.in_progress","response":{` + respHead + `,"status":"in_progress","output":[]}}`}
	evs = append(evs, reasoningEvents(0, "rs_1", encrypted1, "**Reading** the <file>", "then & \"testing\"")...)
	evs = append(evs, textEvents(1, "Reading.")...)
	evs = append(evs, callEvents(2, "call_a", "read_file", `{"path":"a.go"}`)...)
	evs = append(evs, reasoningEvents(3, "rs_2", "gAAAAB-second")...)
	evs = append(evs, callEvents(4, "call_b", "glob", `{"pattern":"*_test.go"}`)...)
	return append(evs, completed(1200, 1024, 450, 320))
}

func respProvider(s *respServer, opts ...Option) *Provider {
	sl := &sleeper{}
	base := []Option{WithBaseURL(s.URL + "/v1"), WithAPIKey("sk-test"), WithAPI(APIResponses),
		WithRetry(llm.RetryPolicy{Sleep: sl.Sleep, Jitter: func() float64 { return 0 }})}
	return New(append(base, opts...)...)
}

func TestResponsesStreamToolCallsAndReasoning(t *testing.T) {
	s := newRespServer(t, events(toolTurn()...))
	p := respProvider(s)
	resp, err := llm.Collect(p.Stream(context.Background(), llm.Request{Model: "gpt-5", Messages: []llm.Message{{Role: llm.RoleUser, Content: "fix it"}}}))
	if err != nil {
		t.Fatal(err)
	}
	m := resp.Message
	if m.Content != "Reading." || m.Reasoning != "**Reading** the <file>\n\nthen & \"testing\"" {
		t.Errorf("content %q, reasoning %q", m.Content, m.Reasoning)
	}
	if len(m.ToolCalls) != 2 || m.ToolCalls[0].ID != "call_a" || string(m.ToolCalls[0].Input) != `{"path":"a.go"}` ||
		m.ToolCalls[1].Name != "glob" || string(m.ToolCalls[1].Input) != `{"pattern":"*_test.go"}` {
		t.Errorf("calls = %+v", m.ToolCalls)
	}
	want := []llm.ReasoningBlock{
		{Provider: "openai", Type: "reasoning", Data: `{"type":"reasoning","summary":[{"type":"summary_text","text":"**Reading** the <file>"},{"type":"summary_text","text":"then & \"testing\""}],"encrypted_content":"` + encrypted1 + `"}`},
		{Provider: "openai", Type: "reasoning", Data: `{"type":"reasoning","summary":[],"encrypted_content":"gAAAAB-second"}`, After: 1},
	}
	if fmt.Sprint(m.ReasoningBlocks) != fmt.Sprint(want) {
		t.Errorf("blocks =\n %+v\nwant\n %+v", m.ReasoningBlocks, want)
	}
	if resp.StopReason != llm.StopToolUse {
		t.Errorf("stop = %s", resp.StopReason)
	}
	if want := (llm.Usage{InputTokens: 1200, OutputTokens: 450, CacheReadTokens: 1024, ReasoningTokens: 320}); resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
	if s.paths[0] != "/v1/responses" {
		t.Errorf("path = %s", s.paths[0])
	}
}

// The request after the calls carries the reasoning items back byte for
// byte where the model made them, the calls and their outputs; the body
// asks for the effort, a summary and the encrypted reasoning, stores
// nothing, and sends tools as non-strict functions.
func TestResponsesRequestAcrossAToolCall(t *testing.T) {
	s := newRespServer(t, events(toolTurn()...), events(append(append([]string{created()}, textEvents(0, "Done.")...), completed(10, 0, 2, 0))...))
	p := respProvider(s, WithMaxTokens(4096))
	tools := []llm.ToolDef{{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}
	req := llm.Request{Model: "gpt-5", System: "You are harness9.", Effort: llm.EffortHigh, Tools: tools,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "fix it"}}}
	resp, err := llm.Collect(p.Stream(context.Background(), req))
	if err != nil {
		t.Fatal(err)
	}
	req.Messages = append(req.Messages, resp.Message,
		llm.Message{Role: llm.RoleTool, ToolCallID: "call_a", Name: "read_file", Content: "package a"},
		llm.Message{Role: llm.RoleTool, ToolCallID: "call_b", Name: "glob", Content: "a_test.go", IsError: true,
			Images: []llm.Image{{MediaType: "image/png", Data: []byte("PNG")}}})
	if _, err := llm.Collect(p.Stream(context.Background(), req)); err != nil {
		t.Fatal(err)
	}
	want := `{"model":"gpt-5","stream":true,"store":false,"instructions":"You are harness9.","input":[` +
		`{"type":"message","role":"user","content":"fix it"},` +
		`{"type":"reasoning","summary":[{"type":"summary_text","text":"**Reading** the <file>"},{"type":"summary_text","text":"then & \"testing\""}],"encrypted_content":"` + encrypted1 + `"},` +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Reading."}]},` +
		`{"type":"function_call","call_id":"call_a","name":"read_file","arguments":"{\"path\":\"a.go\"}"},` +
		`{"type":"reasoning","summary":[],"encrypted_content":"gAAAAB-second"},` +
		`{"type":"function_call","call_id":"call_b","name":"glob","arguments":"{\"pattern\":\"*_test.go\"}"},` +
		`{"type":"function_call_output","call_id":"call_a","output":"package a"},` +
		`{"type":"function_call_output","call_id":"call_b","output":[{"type":"input_text","text":"a_test.go"},{"type":"input_image","image_url":"data:image/png;base64,UE5H"}]}],` +
		`"tools":[{"type":"function","name":"read_file","description":"Read a file.","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]},"strict":false}],` +
		`"include":["reasoning.encrypted_content"],"reasoning":{"effort":"high","summary":"auto"},"max_output_tokens":4096}`
	if got := string(s.body(1)); got != want {
		t.Fatalf("second request:\n%s\nwant\n%s", got, want)
	}
	if h := s.headers[1]; h.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("authorization = %q", h.Get("Authorization"))
	}
}

// Another provider's reasoning is never sent; a model that does not reason
// gets neither include nor reasoning.
func TestResponsesLeavesOutWhatDoesNotBelong(t *testing.T) {
	p := New(WithAPIKey(""), WithBaseURL("http://unused.invalid/v1"), WithAPI(APIResponses), WithName("azure"))
	b, err := p.responsesBody(llm.Request{Model: "gpt-4.1", Messages: []llm.Message{
		{Role: llm.RoleUser, Content: "hi"},
		{Role: llm.RoleAssistant, Content: "hello", ReasoningBlocks: []llm.ReasoningBlock{
			{Provider: "openai", Type: "reasoning", Data: `{"type":"reasoning","summary":[],"encrypted_content":"x"}`},
			{Provider: "anthropic", Type: "thinking", Text: "t", Signature: "s"}}},
		{Role: llm.RoleAssistant}}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	want := `{"model":"gpt-4.1","stream":true,"store":false,"input":[{"type":"message","role":"user","content":"hi"},` +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hello"}]}]}`
	if got := string(b.Bytes()); got != want {
		t.Fatalf("body:\n%s\nwant\n%s", got, want)
	}
}

func TestResponsesAPIChosenByModel(t *testing.T) {
	for model, want := range map[string]API{
		"gpt-5-codex": APIResponses, "o3-pro": APIResponses, "gpt-5-pro": APIResponses, "codex-mini-latest": APIResponses,
		"o4-mini-deep-research": APIResponses, "gpt-4.1": APIChat, "gpt-5": APIChat, "o3": APIChat,
	} {
		if got := New(WithAPIKey("")).API(model); got != want {
			t.Errorf("API(%s) = %s, want %s", model, got, want)
		}
	}
	if New(WithAPI(APIChat)).API("gpt-5-codex") != APIChat || New(WithAPI(APIResponses)).API("gpt-4.1") != APIResponses {
		t.Error("a chosen API is not kept")
	}
	// Auto, end to end: a codex model goes to /responses.
	s := newRespServer(t, events(append(append([]string{created()}, textEvents(0, "hi")...), completed(1, 0, 1, 0))...))
	p := New(WithBaseURL(s.URL+"/v1"), WithAPIKey("k"))
	if _, err := llm.Collect(p.Stream(context.Background(), llm.Request{Model: "gpt-5-codex", Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}})); err != nil {
		t.Fatal(err)
	}
	if s.paths[0] != "/v1/responses" {
		t.Errorf("path = %s", s.paths[0])
	}
}

func TestResponsesFailures(t *testing.T) {
	failed := func(code string) string {
		return `{"type":"response.failed","response":{` + respHead + `,"status":"failed","error":{"code":"` + code + `","message":"The model is overloaded."},"output":[]}}`
	}
	// A server error before any output is retried.
	s := newRespServer(t, events(created(), failed("server_error")), events(append(append([]string{created()}, textEvents(0, "ok")...), completed(1, 0, 1, 0))...))
	resp, err := llm.Collect(respProvider(s).Stream(context.Background(), llm.Request{Model: "gpt-5"}))
	if err != nil || resp.Message.Content != "ok" || len(s.bodies) != 2 {
		t.Fatalf("after a failed response: %v %q, %d requests", err, resp.Message.Content, len(s.bodies))
	}
	// After output it is reported, not retried.
	s = newRespServer(t, events(append(append([]string{created()}, textEvents(0, "partial")...), failed("server_error"))...))
	_, err = llm.Collect(respProvider(s).Stream(context.Background(), llm.Request{Model: "gpt-5"}))
	if err == nil || !strings.Contains(err.Error(), "the response failed: server_error: The model is overloaded.") || len(s.bodies) != 1 {
		t.Fatalf("err = %v (%d requests)", err, len(s.bodies))
	}
	// A stream that ends without response.completed is truncated.
	s = newRespServer(t, events(append([]string{created()}, textEvents(0, "cut")...)...))
	_, err = llm.Collect(respProvider(s, WithRetry(llm.RetryPolicy{MaxRetries: -1})).Stream(context.Background(), llm.Request{Model: "gpt-5"}))
	if err == nil || !strings.Contains(err.Error(), llm.ErrStreamTruncated.Error()) {
		t.Fatalf("err = %v", err)
	}
	// An incomplete response stops at max tokens.
	s = newRespServer(t, events(append(append([]string{created()}, textEvents(0, "long")...),
		`{"type":"response.incomplete","response":{`+respHead+`,"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[],"usage":{"input_tokens":5,"output_tokens":9}}}`)...))
	resp, err = llm.Collect(respProvider(s).Stream(context.Background(), llm.Request{Model: "gpt-5"}))
	if err != nil || resp.StopReason != llm.StopMaxTokens {
		t.Fatalf("incomplete: %v %s", err, resp.StopReason)
	}
}

// A body built on the previous one is exactly the body a provider that
// never saw the earlier requests builds, on the Responses wire too,
// however the messages are handed over (see TestResumedBodyIsTheFreshBody).
func TestResponsesResumedBodyIsTheFreshBody(t *testing.T) {
	checkResumedBodies(t, []Option{WithAPI(APIResponses), WithName("responses")}, (*Provider).responsesBody)
}
