package openai

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/llm"
)

func TestTextOnly(t *testing.T) {
	s := newServer(t, sse(true, roleChunk(), textChunk("Hel"), textChunk("lo, "), textChunk("world."),
		finishChunk("stop"), usageChunk(12, 3, 0)))
	p, _ := provider(s)
	chunks, err := collect(p, simpleReq)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if got := textOf(chunks, llm.ChunkText); got != "Hello, world." {
		t.Errorf("text = %q", got)
	}
	last := chunks[len(chunks)-1]
	if last.Kind != llm.ChunkStop || last.StopReason != llm.StopEndTurn {
		t.Errorf("last chunk = %+v, want stop end_turn", last)
	}
	if s.Requests() != 1 {
		t.Errorf("requests = %d, want 1", s.Requests())
	}
}

func TestUsageChunk(t *testing.T) {
	s := newServer(t, sse(true, roleChunk(), textChunk("ok"), finishChunk("stop"), usageChunk(1200, 34, 1024)))
	p, _ := provider(s)
	resp, err := llm.Collect(p.Stream(context.Background(), simpleReq))
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	want := llm.Usage{InputTokens: 1200, OutputTokens: 34, CacheReadTokens: 1024}
	if resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
}

func TestToolCallSplitOverManyChunks(t *testing.T) {
	args := `{"path":"internal/cli/run.go","offset":10,"limit":200}`
	events := []string{roleChunk(), toolStart(0, "call_DdmO9pD3xa9XTPNJ32zg2hcA", "read_file")}
	events = append(events, splitArgs(0, args, 3)...)
	events = append(events, finishChunk("tool_calls"), usageChunk(50, 20, 0))
	s := newServer(t, sse(true, events...))
	p, _ := provider(s)
	chunks, err := collect(p, simpleReq)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	var calls []llm.ToolCall
	for _, c := range chunks {
		if c.Kind == llm.ChunkToolCall {
			calls = append(calls, *c.ToolCall)
		}
	}
	if len(calls) != 1 {
		t.Fatalf("got %d tool calls, want 1: %+v", len(calls), calls)
	}
	c := calls[0]
	if c.ID != "call_DdmO9pD3xa9XTPNJ32zg2hcA" || c.Name != "read_file" || string(c.Input) != args {
		t.Errorf("call = %s %s %s", c.ID, c.Name, c.Input)
	}
	if last := chunks[len(chunks)-1]; last.StopReason != llm.StopToolUse {
		t.Errorf("stop = %q, want tool_use", last.StopReason)
	}
}

func TestTwoParallelToolCalls(t *testing.T) {
	// Interleaved fragments of two calls, as OpenAI sends parallel calls.
	events := []string{roleChunk(), toolStart(0, "call_a", "glob"), toolArgs(0, `{"pattern":`)}
	events = append(events, toolStart(1, "call_b", "search_files"), toolArgs(1, `{"pattern":"TODO"`),
		toolArgs(0, `"**/*.go"}`), toolArgs(1, `,"path":"."}`), toolStart(2, "call_c", "list_files"),
		finishChunk("tool_calls"))
	s := newServer(t, sse(true, events...))
	p, _ := provider(s)
	resp, err := llm.Collect(p.Stream(context.Background(), simpleReq))
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	calls := resp.Message.ToolCalls
	if len(calls) != 3 {
		t.Fatalf("got %d calls: %+v", len(calls), calls)
	}
	want := []llm.ToolCall{
		{ID: "call_a", Name: "glob", Input: json.RawMessage(`{"pattern":"**/*.go"}`)},
		{ID: "call_b", Name: "search_files", Input: json.RawMessage(`{"pattern":"TODO","path":"."}`)},
		{ID: "call_c", Name: "list_files", Input: json.RawMessage(`{}`)}, // no arguments → {}
	}
	for i := range want {
		if calls[i].ID != want[i].ID || calls[i].Name != want[i].Name || string(calls[i].Input) != string(want[i].Input) {
			t.Errorf("call %d = %s %s %s, want %s %s %s", i, calls[i].ID, calls[i].Name, calls[i].Input,
				want[i].ID, want[i].Name, want[i].Input)
		}
	}
}

func TestReasoningContent(t *testing.T) {
	// DeepSeek / vLLM stream reasoning_content before the answer.
	s := newServer(t, sse(true,
		delta(`{"role":"assistant","content":null,"reasoning_content":""}`),
		delta(`{"content":null,"reasoning_content":"The user greets; "}`),
		delta(`{"content":null,"reasoning_content":"reply briefly."}`),
		delta(`{"content":"Hi!","reasoning_content":null}`),
		finishChunk("stop")))
	p, _ := provider(s, WithName("deepseek"))
	resp, err := llm.Collect(p.Stream(context.Background(), simpleReq))
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if resp.Message.Reasoning != "The user greets; reply briefly." || resp.Message.Content != "Hi!" {
		t.Errorf("reasoning = %q, content = %q", resp.Message.Reasoning, resp.Message.Content)
	}
}

func Test429ThenSuccess(t *testing.T) {
	s := newServer(t,
		apiError(429, "Rate limit reached for gpt-4o", "Retry-After", "1"),
		sse(true, roleChunk(), textChunk("done"), finishChunk("stop")))
	p, sl := provider(s)
	resp, err := llm.Collect(p.Stream(context.Background(), simpleReq))
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if resp.Message.Content != "done" || s.Requests() != 2 {
		t.Errorf("content %q after %d requests", resp.Message.Content, s.Requests())
	}
	if w := sl.Waits(); len(w) != 1 || w[0] != time.Second {
		t.Errorf("waits = %v, want [1s] (Retry-After)", w)
	}
}

func Test500Persistent(t *testing.T) {
	s := newServer(t, apiError(500, "The server had an error while processing your request."))
	p, sl := provider(s)
	_, err := collect(p, simpleReq)
	var perr *llm.ProviderError
	if !errors.As(err, &perr) {
		t.Fatalf("err = %v, want *llm.ProviderError", err)
	}
	if perr.Status != 500 || perr.Provider != "openai" || perr.Attempts != 4 {
		t.Errorf("ProviderError = %+v", perr)
	}
	msg := err.Error()
	for _, want := range []string{"openai", "500", "The server had an error while processing your request."} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}
	if strings.Contains(msg, "sk-test-secret") {
		t.Errorf("error leaks the API key: %q", msg)
	}
	if s.Requests() != 4 || len(sl.Waits()) != 3 {
		t.Errorf("requests = %d, waits = %v; want 4 requests, 3 waits", s.Requests(), sl.Waits())
	}
}

func TestClientErrorNotRetried(t *testing.T) {
	s := newServer(t, apiError(401, "Incorrect API key provided."))
	p, _ := provider(s, WithName("deepseek"))
	_, err := collect(p, simpleReq)
	if err == nil || !strings.Contains(err.Error(), "deepseek: HTTP 401") || !strings.Contains(err.Error(), "Incorrect API key") {
		t.Errorf("err = %v", err)
	}
	if s.Requests() != 1 {
		t.Errorf("requests = %d, want 1", s.Requests())
	}
}

func TestDroppedMidStream(t *testing.T) {
	s := newServer(t, drop(roleChunk(), textChunk("Partial ans")))
	p, _ := provider(s)
	chunks, err := collect(p, simpleReq)
	if textOf(chunks, llm.ChunkText) != "Partial ans" {
		t.Errorf("delivered text = %q", textOf(chunks, llm.ChunkText))
	}
	var perr *llm.ProviderError
	if !errors.As(err, &perr) || !strings.Contains(err.Error(), "openai") {
		t.Fatalf("err = %v, want a ProviderError", err)
	}
	if s.Requests() != 1 {
		t.Errorf("requests = %d: a half-delivered stream must not be replayed", s.Requests())
	}
}

func TestDroppedBeforeAnyChunkIsRetried(t *testing.T) {
	s := newServer(t, drop(roleChunk()), sse(true, roleChunk(), textChunk("second try"), finishChunk("stop")))
	p, _ := provider(s)
	resp, err := llm.Collect(p.Stream(context.Background(), simpleReq))
	if err != nil || resp.Message.Content != "second try" || s.Requests() != 2 {
		t.Errorf("content %q, err %v, requests %d", resp.Message.Content, err, s.Requests())
	}
}

func TestStreamEndsWithoutFinish(t *testing.T) {
	// A clean close with neither finish_reason nor [DONE], after text was delivered.
	s := newServer(t, sse(false, roleChunk(), textChunk("cut")))
	p, _ := provider(s)
	_, err := collect(p, simpleReq)
	if !errors.Is(err, llm.ErrStreamTruncated) || s.Requests() != 1 {
		t.Errorf("err = %v after %d requests, want ErrStreamTruncated after 1", err, s.Requests())
	}
}

func TestMalformedChunk(t *testing.T) {
	s := newServer(t, sse(true, roleChunk(), `{"id":"chatcmpl-x","choices":[{"index":0,"delta":{"content":"oops"`))
	p, _ := provider(s)
	_, err := collect(p, simpleReq)
	if err == nil || !strings.Contains(err.Error(), "openai: malformed stream chunk") {
		t.Errorf("err = %v, want a malformed-chunk error", err)
	}
	if s.Requests() != 1 {
		t.Errorf("requests = %d, malformed output is not retried", s.Requests())
	}
}

func TestErrorEventMidStream(t *testing.T) {
	s := newServer(t, sse(false, roleChunk(), `{"error":{"message":"The model is overloaded","type":"server_error"}}`))
	p, _ := provider(s)
	_, err := collect(p, simpleReq)
	if err == nil || !strings.Contains(err.Error(), "The model is overloaded") {
		t.Errorf("err = %v", err)
	}
}

func TestConsumerStopsEarly(t *testing.T) {
	s := newServer(t, sse(true, roleChunk(), textChunk("a"), textChunk("b"), finishChunk("stop")))
	p, _ := provider(s)
	n := 0
	for _, err := range p.Stream(context.Background(), simpleReq) {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		n++
		break
	}
	if n != 1 || s.Requests() != 1 {
		t.Errorf("chunks %d, requests %d", n, s.Requests())
	}
}

func TestCancelledContext(t *testing.T) {
	s := newServer(t, apiError(503, "busy"))
	p, _ := provider(s)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, err := range p.Stream(ctx, simpleReq) {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	}
}
