package anthropic

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/llm"
)

func TestTextOnly(t *testing.T) {
	s := newServer(t, sse(textReply("Hello", ", wor", "ld.")...))
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
		t.Errorf("last chunk = %+v", last)
	}
}

func TestUsage(t *testing.T) {
	evs := []event{messageStart(10, 2000, 300), textStart(0), textDelta(0, "ok"), blockStop(0),
		messageDelta("end_turn", 42), messageStop()}
	s := newServer(t, sse(evs...))
	p, _ := provider(s)
	resp, err := llm.Collect(p.Stream(context.Background(), simpleReq))
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{InputTokens: 2310, OutputTokens: 42, CacheReadTokens: 2000, CacheWriteTokens: 300}
	if resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
}

func TestToolCallSplitOverManyChunks(t *testing.T) {
	args := `{"path":"internal/cli/run.go","old":"a := 1","new":"a := 2"}`
	evs := []event{messageStart(100, 0, 0), textStart(0), textDelta(0, "Let me edit."), blockStop(0),
		toolStart(1, "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "edit_file")}
	evs = append(evs, jsonDeltas(1, args, 4)...)
	evs = append(evs, blockStop(1), messageDelta("tool_use", 80), messageStop())
	s := newServer(t, sse(evs...))
	p, _ := provider(s)
	resp, err := llm.Collect(p.Stream(context.Background(), simpleReq))
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls
	if len(calls) != 1 || calls[0].ID != "toolu_01T1x1fJ34qAmk2tNTrN7Up6" || calls[0].Name != "edit_file" ||
		string(calls[0].Input) != args {
		t.Fatalf("calls = %+v", calls)
	}
	if resp.Message.Content != "Let me edit." || resp.StopReason != llm.StopToolUse {
		t.Errorf("content %q, stop %q", resp.Message.Content, resp.StopReason)
	}
}

func TestTwoParallelToolCalls(t *testing.T) {
	evs := []event{messageStart(100, 0, 0), toolStart(0, "toolu_a", "glob")}
	evs = append(evs, jsonDeltas(0, `{"pattern":"**/*.go"}`, 5)...)
	evs = append(evs, blockStop(0), toolStart(1, "toolu_b", "list_files"), jsonDelta(1, ""), blockStop(1),
		messageDelta("tool_use", 60), messageStop())
	s := newServer(t, sse(evs...))
	p, _ := provider(s)
	resp, err := llm.Collect(p.Stream(context.Background(), simpleReq))
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls
	if len(calls) != 2 {
		t.Fatalf("calls = %+v", calls)
	}
	if calls[0].ID != "toolu_a" || string(calls[0].Input) != `{"pattern":"**/*.go"}` {
		t.Errorf("call 0 = %+v", calls[0])
	}
	if calls[1].ID != "toolu_b" || string(calls[1].Input) != `{}` { // empty input → {}
		t.Errorf("call 1 = %s %s", calls[1].ID, calls[1].Input)
	}
}

func TestThinking(t *testing.T) {
	evs := []event{messageStart(10, 0, 0),
		ev(`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`),
		ev(`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me think "}}`),
		ev(`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"step by step."}}`),
		ev(`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}}`),
		blockStop(0), textStart(1), textDelta(1, "42"), blockStop(1), messageDelta("end_turn", 20), messageStop()}
	s := newServer(t, sse(evs...))
	p, _ := provider(s)
	resp, err := llm.Collect(p.Stream(context.Background(), simpleReq))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Reasoning != "Let me think step by step." || resp.Message.Content != "42" {
		t.Errorf("reasoning %q, content %q", resp.Message.Reasoning, resp.Message.Content)
	}
}

func Test429ThenSuccess(t *testing.T) {
	s := newServer(t,
		apiError(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", "Retry-After", "2"),
		sse(textReply("done")...))
	p, sl := provider(s)
	resp, err := llm.Collect(p.Stream(context.Background(), simpleReq))
	if err != nil || resp.Message.Content != "done" || s.Requests() != 2 {
		t.Fatalf("content %q, err %v, requests %d", resp.Message.Content, err, s.Requests())
	}
	if w := sl.Waits(); len(w) != 1 || w[0] != 2*time.Second {
		t.Errorf("waits = %v, want [2s]", w)
	}
}

func Test500Persistent(t *testing.T) {
	s := newServer(t, apiError(500, "api_error", "Internal server error"))
	p, sl := provider(s)
	_, err := collect(p, simpleReq)
	var perr *llm.ProviderError
	if !errors.As(err, &perr) || perr.Status != 500 || perr.Provider != "anthropic" || perr.Attempts != 4 {
		t.Fatalf("err = %v (%+v)", err, perr)
	}
	msg := err.Error()
	for _, want := range []string{"anthropic", "500", "Internal server error"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}
	if strings.Contains(msg, "sk-ant-test-secret") {
		t.Errorf("error leaks the key: %q", msg)
	}
	if s.Requests() != 4 || len(sl.Waits()) != 3 {
		t.Errorf("requests %d, waits %v", s.Requests(), sl.Waits())
	}
}

func TestOverloadedEventBeforeOutputIsRetried(t *testing.T) {
	s := newServer(t,
		sse(messageStart(10, 0, 0), ev(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)),
		sse(textReply("ok")...))
	p, _ := provider(s)
	resp, err := llm.Collect(p.Stream(context.Background(), simpleReq))
	if err != nil || resp.Message.Content != "ok" || s.Requests() != 2 {
		t.Errorf("content %q, err %v, requests %d", resp.Message.Content, err, s.Requests())
	}
}

func TestErrorEventAfterOutput(t *testing.T) {
	s := newServer(t, sse(messageStart(10, 0, 0), textStart(0), textDelta(0, "Part"),
		ev(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)))
	p, _ := provider(s)
	_, err := collect(p, simpleReq)
	if err == nil || !strings.Contains(err.Error(), "Overloaded") || s.Requests() != 1 {
		t.Errorf("err %v, requests %d", err, s.Requests())
	}
}

func TestDroppedMidStream(t *testing.T) {
	s := newServer(t, drop(messageStart(10, 0, 0), textStart(0), textDelta(0, "Partial ans")))
	p, _ := provider(s)
	chunks, err := collect(p, simpleReq)
	if textOf(chunks, llm.ChunkText) != "Partial ans" {
		t.Errorf("text = %q", textOf(chunks, llm.ChunkText))
	}
	var perr *llm.ProviderError
	if !errors.As(err, &perr) || !strings.Contains(err.Error(), "anthropic") {
		t.Fatalf("err = %v", err)
	}
	if s.Requests() != 1 {
		t.Errorf("requests = %d: a half-delivered stream must not be replayed", s.Requests())
	}
}

func TestDroppedBeforeOutputIsRetried(t *testing.T) {
	s := newServer(t, drop(messageStart(10, 0, 0)), sse(textReply("again")...))
	p, _ := provider(s)
	resp, err := llm.Collect(p.Stream(context.Background(), simpleReq))
	if err != nil || resp.Message.Content != "again" || s.Requests() != 2 {
		t.Errorf("content %q, err %v, requests %d", resp.Message.Content, err, s.Requests())
	}
}

func TestStreamEndsWithoutMessageStop(t *testing.T) {
	s := newServer(t, sse(messageStart(10, 0, 0), textStart(0), textDelta(0, "cut"), blockStop(0)))
	p, _ := provider(s)
	_, err := collect(p, simpleReq)
	if !errors.Is(err, llm.ErrStreamTruncated) || s.Requests() != 1 {
		t.Errorf("err %v, requests %d", err, s.Requests())
	}
}

func TestMalformedEvent(t *testing.T) {
	s := newServer(t, sse(messageStart(10, 0, 0), event{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{`}))
	p, _ := provider(s)
	_, err := collect(p, simpleReq)
	if err == nil || !strings.Contains(err.Error(), "anthropic: malformed stream event") || s.Requests() != 1 {
		t.Errorf("err %v, requests %d", err, s.Requests())
	}
}

func TestConsumerStopsEarly(t *testing.T) {
	s := newServer(t, sse(textReply("a", "b", "c")...))
	p, _ := provider(s)
	n := 0
	for _, err := range p.Stream(context.Background(), simpleReq) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		break
	}
	if n != 1 {
		t.Errorf("chunks = %d", n)
	}
}

func TestCancelledContext(t *testing.T) {
	s := newServer(t, apiError(529, "overloaded_error", "Overloaded"))
	p, _ := provider(s)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, err := range p.Stream(ctx, simpleReq) {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	}
}

func BenchmarkStreamText(b *testing.B) {
	parts := make([]string, 200)
	for i := range parts {
		parts[i] = "token "
	}
	s := newServer(b, sse(textReply(parts...)...))
	p, _ := provider(s)
	for b.Loop() {
		if _, err := llm.Collect(p.Stream(context.Background(), simpleReq)); err != nil {
			b.Fatal(err)
		}
	}
}
