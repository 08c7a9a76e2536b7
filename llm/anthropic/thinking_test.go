package anthropic

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

// rawServer answers each request with the next handler and keeps the
// bytes and headers it received.
type rawServer struct {
	*httptest.Server
	mu      sync.Mutex
	bodies  [][]byte
	headers []http.Header
	paths   []string
}

func newRawServer(t *testing.T, handlers ...http.HandlerFunc) *rawServer {
	t.Helper()
	s := &rawServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.bodies)
		s.bodies = append(s.bodies, body)
		s.headers = append(s.headers, r.Header.Clone())
		s.paths = append(s.paths, r.URL.EscapedPath())
		s.mu.Unlock()
		handlers[min(n, len(handlers)-1)](w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *rawServer) body(i int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[i]
}

func thinkingStart(i int) event {
	return ev(fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"thinking","thinking":"","signature":""}}`, i))
}

func thinkingDelta(i int, s string) event {
	b, _ := json.Marshal(s)
	return ev(fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"thinking_delta","thinking":%s}}`, i, b))
}

func signatureDelta(i int, s string) event {
	return ev(fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"signature_delta","signature":%q}}`, i, s))
}

func redactedBlock(i int, data string) []event {
	return []event{ev(fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"redacted_thinking","data":%q}}`, i, data)),
		blockStop(i)}
}

// A signature as the API sends it: base64 with characters JSON escapes
// (+ and /) and padding.
const sig1, sig2 = "EqQBCgIYAhIM1gb+cDa9/GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds==", "ErUBCkYIBxgCIkB/second+sig=="

// interleaved is a streamed answer with thinking, text, a call, redacted
// thinking, more thinking and a second call: the shape of interleaved
// thinking.
func interleaved() []event {
	evs := []event{messageStart(50, 0, 0), thinkingStart(0), thinkingDelta(0, "I should read "), thinkingDelta(0, "the <file> & \"check\"."),
		signatureDelta(0, sig1), blockStop(0), textStart(1), textDelta(1, "Reading."), blockStop(1),
		toolStart(2, "toolu_a", "read_file")}
	evs = append(evs, jsonDeltas(2, `{"path":"a.go"}`, 5)...)
	evs = append(evs, blockStop(2))
	evs = append(evs, redactedBlock(3, "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlx")...)
	evs = append(evs, thinkingStart(4), thinkingDelta(4, "Now the tests."), signatureDelta(4, sig2), blockStop(4),
		toolStart(5, "toolu_b", "glob"))
	evs = append(evs, jsonDeltas(5, `{"pattern":"*_test.go"}`, 7)...)
	return append(evs, blockStop(5),
		ev(`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":300,"output_tokens_details":{"thinking_tokens":220}}}`),
		messageStop())
}

func TestThinkingBlocksKeepTheirSignaturesAndPlaces(t *testing.T) {
	s := newServer(t, sse(interleaved()...))
	p, _ := provider(s)
	resp, err := llm.Collect(p.Stream(context.Background(), simpleReq))
	if err != nil {
		t.Fatal(err)
	}
	m := resp.Message
	if m.Reasoning != "I should read the <file> & \"check\".Now the tests." {
		t.Errorf("reasoning = %q", m.Reasoning)
	}
	want := []llm.ReasoningBlock{
		{Provider: "anthropic", Type: "thinking", Text: "I should read the <file> & \"check\".", Signature: sig1},
		{Provider: "anthropic", Type: "redacted_thinking", Data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlx", After: 1},
		{Provider: "anthropic", Type: "thinking", Text: "Now the tests.", Signature: sig2, After: 1},
	}
	if fmt.Sprint(m.ReasoningBlocks) != fmt.Sprint(want) {
		t.Errorf("blocks =\n %+v\nwant\n %+v", m.ReasoningBlocks, want)
	}
	if len(m.ToolCalls) != 2 || m.Content != "Reading." {
		t.Errorf("message = %+v", m)
	}
	if resp.Usage.OutputTokens != 300 || resp.Usage.ReasoningTokens != 220 {
		t.Errorf("usage = %+v", resp.Usage)
	}
}

// thinkingTurn is the assistant message of interleaved() followed by its
// results, as the engine stores them.
func thinkingTurn(t *testing.T, p *Provider, s *rawServer, req llm.Request) []llm.Message {
	t.Helper()
	resp, err := llm.Collect(p.Stream(context.Background(), req))
	if err != nil {
		t.Fatal(err)
	}
	return append(append(req.Messages, resp.Message),
		llm.Message{Role: llm.RoleTool, ToolCallID: "toolu_a", Name: "read_file", Content: "package a"},
		llm.Message{Role: llm.RoleTool, ToolCallID: "toolu_b", Name: "glob", Content: "a_test.go"})
}

// The request after a tool call carries the thinking blocks back byte for
// byte, in the order the model made them, before the text and between the
// calls; it asks for the budget and the interleaved-thinking beta; and a
// session saved and loaded again (the message through JSON, a new
// provider) sends the same bytes.
func TestThinkingGoesBackAcrossAToolCallAndAResume(t *testing.T) {
	s := newRawServer(t, sse(interleaved()...), sse(textReply("Done.")...))
	p := New(WithBaseURL(s.URL), WithAPIKey("k"))
	req := llm.Request{Model: "claude-sonnet-4-5", Effort: llm.EffortMedium,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "fix it"}}}
	hist := thinkingTurn(t, p, s, req)
	req.Messages = hist
	if _, err := llm.Collect(p.Stream(context.Background(), req)); err != nil {
		t.Fatal(err)
	}
	first, second := s.body(0), s.body(1)
	for i, b := range [][]byte{first, second} {
		if !bytes.Contains(b, []byte(`"max_tokens":18192,"thinking":{"type":"enabled","budget_tokens":10000}`)) {
			t.Errorf("request %d does not ask for thinking: %s", i, b)
		}
		if got := s.headers[i].Values("Anthropic-Beta"); strings.Join(got, ",") != interleavedBeta {
			t.Errorf("request %d: anthropic-beta = %q", i, got)
		}
	}
	wantAssistant := `{"role":"assistant","content":[` +
		`{"type":"thinking","thinking":"I should read the <file> & \"check\".","signature":"` + sig1 + `"},` +
		`{"type":"text","text":"Reading."},` +
		`{"type":"tool_use","id":"toolu_a","name":"read_file","input":{"path":"a.go"}},` +
		`{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlx"},` +
		`{"type":"thinking","thinking":"Now the tests.","signature":"` + sig2 + `"},` +
		`{"type":"tool_use","id":"toolu_b","name":"glob","input":{"pattern":"*_test.go"}}]}`
	if !bytes.Contains(second, []byte(wantAssistant)) {
		t.Fatalf("the assistant message went back as\n%s\nwant it to contain\n%s", second, wantAssistant)
	}

	// A resume: the history through JSON (as the stores keep it) and a
	// new provider, as another process has.
	raw, err := json.Marshal(hist)
	if err != nil {
		t.Fatal(err)
	}
	var loaded []llm.Message
	if err := json.Unmarshal(raw, &loaded); err != nil {
		t.Fatal(err)
	}
	p2 := New(WithBaseURL(s.URL), WithAPIKey("k"))
	req.Messages = loaded
	if _, err := llm.Collect(p2.Stream(context.Background(), req)); err != nil {
		t.Fatal(err)
	}
	if third := s.body(2); !bytes.Equal(third, second) {
		t.Fatalf("after a resume the request differs:\n%s\nwant\n%s", third, second)
	}
}

// Without an effort no thinking is asked for and no thinking block is
// sent; another provider's blocks are never sent; and a tool loop whose
// last call was made without thinking goes on without it (the API
// refuses thinking there), turning it on again at the next prompt.
func TestThinkingOnlyWhereTheAPITakesIt(t *testing.T) {
	s := newRawServer(t, sse(interleaved()...), sse(textReply("ok")...))
	p := New(WithBaseURL(s.URL), WithAPIKey("k"))
	hist := thinkingTurn(t, p, s, llm.Request{Model: "claude-sonnet-4-5", Effort: llm.EffortLow,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "fix it"}}})

	body := func(req llm.Request) string {
		t.Helper()
		b, _, err := p.body(req)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Release()
		return string(b.Bytes())
	}
	off := body(llm.Request{Model: "claude-sonnet-4-5", Messages: hist})
	if strings.Contains(off, `"thinking"`) || strings.Contains(off, "redacted_thinking") {
		t.Errorf("thinking sent with no effort: %s", off)
	}
	if !strings.Contains(off, `"max_tokens":8192,`) {
		t.Errorf("max_tokens changed without thinking: %s", off)
	}

	other := append([]llm.Message(nil), hist...)
	other[1].ReasoningBlocks = append([]llm.ReasoningBlock(nil), other[1].ReasoningBlocks...)
	for i := range other[1].ReasoningBlocks {
		other[1].ReasoningBlocks[i].Provider = "bedrock"
	}
	got := body(llm.Request{Model: "claude-sonnet-4-5", Effort: llm.EffortHigh, Messages: other})
	if strings.Contains(got, `"thinking":{`) || strings.Contains(got, sig1) {
		t.Errorf("another provider's blocks were sent, or thinking was asked for mid-loop without them: %s", got)
	}
	other = append(other, llm.Message{Role: llm.RoleAssistant, Content: "Done."}, llm.Message{Role: llm.RoleUser, Content: "next"})
	if got := body(llm.Request{Model: "claude-sonnet-4-5", Effort: llm.EffortHigh, Messages: other}); !strings.Contains(got, `"budget_tokens":20000`) {
		t.Errorf("thinking not asked for at a new prompt: %s", got)
	}
}

func TestThinkingBudgetOption(t *testing.T) {
	p := New(WithAPIKey(""), WithBaseURL("http://unused.invalid"), WithThinkingBudget(llm.EffortLow, 2048), WithMaxTokens(1000))
	b, think, err := p.body(llm.Request{Model: "claude-3-7-sonnet", Effort: llm.EffortLow, Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	if !think || !bytes.Contains(b.Bytes(), []byte(`"max_tokens":3048,"thinking":{"type":"enabled","budget_tokens":2048}`)) {
		t.Errorf("body = %s", b.Bytes())
	}
	if ThinkingBudget[llm.EffortLow] != 4000 {
		t.Error("WithThinkingBudget changed the package default")
	}
}
