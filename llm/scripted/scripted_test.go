package scripted_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
)

func collect(t *testing.T, p *scripted.Provider, req llm.Request) ([]llm.Chunk, error) {
	t.Helper()
	var chunks []llm.Chunk
	for c, err := range p.Stream(context.Background(), req) {
		if err != nil {
			return chunks, err
		}
		chunks = append(chunks, c)
	}
	return chunks, nil
}

func TestPlaysTurnsInOrder(t *testing.T) {
	p := scripted.New(
		scripted.Turn{Reasoning: "think", Text: "héllo wörld, this is long enough to split", ChunkSize: 5,
			Calls: scripted.Calls(scripted.Call("read_file", map[string]any{"path": "a.go"}), scripted.Call("bash", `{"command":"ls"}`)),
			Usage: llm.Usage{InputTokens: 10, OutputTokens: 3}},
		scripted.Turn{Text: "done"},
	)
	if p.Name() != "scripted" {
		t.Fatalf("Name = %q", p.Name())
	}
	chunks, err := collect(t, p, llm.Request{})
	if err != nil {
		t.Fatal(err)
	}
	var texts int
	for _, c := range chunks {
		if c.Kind == llm.ChunkText {
			texts++
		}
	}
	if texts < 2 {
		t.Errorf("text came in %d chunks, want several", texts)
	}
	if last := chunks[len(chunks)-1]; last.Kind != llm.ChunkStop || last.StopReason != llm.StopToolUse {
		t.Errorf("last chunk = %+v, want a tool_use stop", last)
	}
	var acc llm.Accumulator
	for _, c := range chunks {
		acc.Add(c)
	}
	resp := acc.Response()
	if resp.Message.Content != "héllo wörld, this is long enough to split" || resp.Message.Reasoning != "think" {
		t.Errorf("message = %+v", resp.Message)
	}
	if len(resp.Message.ToolCalls) != 2 || resp.Message.ToolCalls[0].ID != "call_1_1" || resp.Message.ToolCalls[1].ID != "call_1_2" {
		t.Errorf("calls = %+v", resp.Message.ToolCalls)
	}
	if string(resp.Message.ToolCalls[0].Input) != `{"path":"a.go"}` || string(resp.Message.ToolCalls[1].Input) != `{"command":"ls"}` {
		t.Errorf("inputs = %s, %s", resp.Message.ToolCalls[0].Input, resp.Message.ToolCalls[1].Input)
	}
	if resp.Usage.InputTokens != 10 {
		t.Errorf("usage = %+v", resp.Usage)
	}
	if p.Remaining() != 1 {
		t.Errorf("Remaining = %d, want 1", p.Remaining())
	}
	resp2, err := llm.Collect(p.Stream(context.Background(), llm.Request{}))
	if err != nil || resp2.Message.Content != "done" || resp2.StopReason != llm.StopEndTurn {
		t.Fatalf("second turn = %+v, %v", resp2, err)
	}
	_, err = llm.Collect(p.Stream(context.Background(), llm.Request{}))
	if err == nil || !strings.Contains(err.Error(), "no turn left") {
		t.Fatalf("exhausted script error = %v", err)
	}
	if n := len(p.Requests()); n != 3 {
		t.Errorf("recorded %d requests, want 3", n)
	}
}

func TestMatchRejectsAndNamesTheTurn(t *testing.T) {
	p := scripted.New(scripted.Turn{Name: "plan", Match: scripted.All(scripted.NoTool("write_file"), scripted.HasTool("read_file")), Text: "ok"})
	req := llm.Request{
		Tools:    []llm.ToolDef{{Name: "read_file"}, {Name: "write_file"}},
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "make a plan"}},
	}
	_, err := llm.Collect(p.Stream(context.Background(), req))
	if err == nil {
		t.Fatal("a rejected turn played")
	}
	for _, want := range []string{`turn 1 ("plan")`, "read_file, write_file", `"make a plan"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	if p.Remaining() != 1 {
		t.Error("a rejected turn was consumed")
	}
	req.Tools = req.Tools[:1]
	if resp, err := llm.Collect(p.Stream(context.Background(), req)); err != nil || resp.Message.Content != "ok" {
		t.Fatalf("matching request: %+v, %v", resp, err)
	}
}

func TestMatchers(t *testing.T) {
	req := llm.Request{System: "you are harness9", Messages: []llm.Message{
		{Role: llm.RoleUser, Content: "fix the bug"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "bash"}}},
		{Role: llm.RoleTool, ToolCallID: "1", Content: "exit code 0"},
	}}
	cases := []struct {
		name string
		m    scripted.Matcher
		want bool
	}{
		{"LastUserContains", scripted.LastUserContains("bug"), true},
		{"LastUserContains miss", scripted.LastUserContains("feature"), false},
		{"LastToolResultContains", scripted.LastToolResultContains("exit code"), true},
		{"SystemContains", scripted.SystemContains("harness9"), true},
		{"Any", scripted.Any(scripted.HasTool("x"), scripted.NoTool("x")), true},
		{"All", scripted.All(scripted.HasTool("x"), scripted.NoTool("x")), false},
	}
	for _, c := range cases {
		if got := c.m(req); got != c.want {
			t.Errorf("%s = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestErrAfterPartialText(t *testing.T) {
	boom := errors.New("connection reset")
	p := scripted.New(scripted.Turn{Text: "partial", Err: boom})
	resp, err := llm.Collect(p.Stream(context.Background(), llm.Request{}))
	if !errors.Is(err, boom) || resp.Message.Content != "partial" {
		t.Fatalf("got %q, %v", resp.Message.Content, err)
	}
}

func TestCancelMidStream(t *testing.T) {
	p := scripted.New(scripted.Turn{Text: strings.Repeat("x", 100), ChunkSize: 10})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got int
	var final error
	for c, err := range p.Stream(ctx, llm.Request{}) {
		if err != nil {
			final = err
			break
		}
		if c.Kind == llm.ChunkText {
			got++
			cancel()
		}
	}
	if got != 1 || !errors.Is(final, context.Canceled) {
		t.Fatalf("got %d chunks then %v; want 1 chunk then context.Canceled", got, final)
	}
}

func TestHangWaitsForCancel(t *testing.T) {
	p := scripted.New(scripted.Turn{Text: "thinking", Hang: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var final error
	for c, err := range p.Stream(ctx, llm.Request{}) {
		if err != nil {
			final = err
			break
		}
		if c.Kind == llm.ChunkText {
			cancel()
		}
	}
	if !errors.Is(final, context.Canceled) {
		t.Fatalf("final = %v", final)
	}
}

func TestRespondAndDeepCopies(t *testing.T) {
	p := scripted.New(scripted.Turn{Respond: func(r llm.Request) scripted.Turn {
		return scripted.Turn{Text: "you said " + r.Messages[0].Content}
	}})
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi",
		ToolCalls: []llm.ToolCall{{Name: "x", Input: []byte(`{"a":1}`)}}}}}
	resp, err := llm.Collect(p.Stream(context.Background(), req))
	if err != nil || resp.Message.Content != "you said hi" {
		t.Fatalf("got %+v, %v", resp, err)
	}
	req.Messages[0].Content = "changed"
	req.Messages[0].ToolCalls[0].Input[2] = 'b'
	got := p.Requests()[0]
	if got.Messages[0].Content != "hi" || string(got.Messages[0].ToolCalls[0].Input) != `{"a":1}` {
		t.Errorf("recorded request shares memory with the caller's: %+v", got.Messages[0])
	}
	if last, ok := p.LastRequest(); !ok || last.Messages[0].Content != "hi" {
		t.Errorf("LastRequest = %+v, %v", last, ok)
	}
}

func TestAddExtendsTheScript(t *testing.T) {
	p := scripted.New()
	p.Add(scripted.Turn{Text: "late"})
	if resp, err := llm.Collect(p.Stream(context.Background(), llm.Request{})); err != nil || resp.Message.Content != "late" {
		t.Fatalf("got %+v, %v", resp, err)
	}
}

func TestCallPanicsOnUnmarshalable(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	scripted.Call("x", make(chan int))
}

// Image messages are accepted, recorded as copies, and matched by count.
func TestImagesRecordedAndMatched(t *testing.T) {
	p := scripted.New(scripted.Turn{Text: "a cat", Match: scripted.HasImages(2)})
	data := []byte("PNG")
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "what is this?", Images: []llm.Image{
		{MediaType: "image/png", Data: data}, {MediaType: "image/gif", Data: []byte("GIF")}}}}}
	if _, err := llm.Collect(p.Stream(context.Background(), req)); err != nil {
		t.Fatal(err)
	}
	data[0] = 'X'
	got, _ := p.LastRequest()
	if im := got.Messages[0].Images; len(im) != 2 || string(im[0].Data) != "PNG" || im[1].MediaType != "image/gif" {
		t.Fatalf("recorded images = %+v", im)
	}
	p.Add(scripted.Turn{Text: "no", Match: scripted.HasImages(3)})
	if _, err := llm.Collect(p.Stream(context.Background(), req)); err == nil || !strings.Contains(err.Error(), "2 images") {
		t.Fatalf("too few images: %v", err)
	}
}
