package compact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness9/harness9/llm"
)

func TestEstimateTokensCountsEverything(t *testing.T) {
	base := EstimateTokens("", nil, nil)
	if base != 0 {
		t.Errorf("empty request = %d tokens, want 0", base)
	}
	sys := EstimateTokens("You are a helpful coding agent.", nil, nil)
	if sys < 5 || sys > 12 {
		t.Errorf("short system prompt = %d tokens", sys)
	}
	msgs := []llm.Message{user("hello there"), {Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "read_file", Input: json.RawMessage(`{"path":"main.go"}`)}}}}
	withMsgs := EstimateTokens("You are a helpful coding agent.", msgs, nil)
	if withMsgs <= sys {
		t.Errorf("messages add nothing: %d <= %d", withMsgs, sys)
	}
	tools := []llm.ToolDef{{Name: "read_file", Description: "Read a file", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	if EstimateTokens("You are a helpful coding agent.", msgs, tools) <= withMsgs {
		t.Error("tool definitions add nothing")
	}
}

func TestEstimateTokensCacheIsConsistent(t *testing.T) {
	e := newEstimator()
	h := session(30)
	first := e.estimate("sys", h, nil)
	second := e.estimate("sys", h, nil)
	if first != second {
		t.Errorf("cached estimate %d differs from first %d", second, first)
	}
	fresh := newEstimator().estimate("sys", h, nil)
	if fresh != first {
		t.Errorf("fresh estimator %d differs from %d", fresh, first)
	}
}

func TestEstimateTokensBudgetExtrapolates(t *testing.T) {
	// 400 turns (about 1.2 MB) are far above the per-call budget: the first
	// estimate must stay within a few percent of the exact count reached once
	// every text is cached.
	h := session(400)
	e := newEstimator()
	cold := e.estimate("", h, nil)
	exact := cold
	for range 20 { // fill the cache budget by budget
		next := e.estimate("", h, nil)
		if next == exact {
			break
		}
		exact = next
	}
	if diff := float64(cold-exact) / float64(exact); diff > 0.05 || diff < -0.05 {
		t.Errorf("cold estimate %d vs exact %d: off by %.1f%%", cold, exact, diff*100)
	}
}

func TestEstimateTokensLongTextSampled(t *testing.T) {
	long := strings.Repeat(goSource(7, 40), 40) // ~350 KB in one message
	e := newEstimator()
	got := e.estimate("", []llm.Message{user(long)}, nil)
	exact, ok := e.count(long)
	if !ok {
		t.Fatal("codec failed")
	}
	if diff := float64(got-exact) / float64(exact); diff > 0.05 || diff < -0.05 {
		t.Errorf("sampled %d vs exact %d", got, exact)
	}
}

func TestEstimateTokensFallback(t *testing.T) {
	e := &estimator{cache: map[string]int{}} // no codec: bytes/4
	got := e.estimate(strings.Repeat("x", 400), nil, nil)
	if got != 100 {
		t.Errorf("fallback = %d, want 100", got)
	}
}

func benchEstimate(b *testing.B, h []llm.Message, warm bool) {
	loadCodec()
	e := newEstimator()
	if warm {
		warmUp(e, h)
	}
	b.ResetTimer()
	for range b.N {
		if !warm {
			e = newEstimator()
		}
		e.estimate("sys", h, nil)
	}
}

func BenchmarkEstimateTokens200TurnsCold(b *testing.B) { benchEstimate(b, session(200), false) }
func BenchmarkEstimateTokens200TurnsWarm(b *testing.B) { benchEstimate(b, session(200), true) }
func BenchmarkEstimateTokens10kMsgsCold(b *testing.B)  { benchEstimate(b, session(2500), false) }
func BenchmarkEstimateTokens10kMsgsWarm(b *testing.B)  { benchEstimate(b, session(2500), true) }
func BenchmarkEstimateTokensAppendOne(b *testing.B) {
	// The engine's case: the history grew by one message since the last call.
	h := session(2500)
	e := newEstimator()
	warmUp(e, h)
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		hh := append(h[:len(h):len(h)], user(goSource(i, 20)))
		b.StartTimer()
		e.estimate("sys", hh, nil)
	}
}

// warmUp estimates until every text of h is cached.
func warmUp(e *estimator, h []llm.Message) {
	prev := -1
	for {
		n := e.estimate("sys", h, nil)
		if n == prev {
			return
		}
		prev = n
	}
}

// An image counts as ImageTokens, not by its size.
func TestEstimateTokensImageIsFixed(t *testing.T) {
	text := []llm.Message{{Role: llm.RoleUser, Content: "what is in this picture?"}}
	base := EstimateTokens("", text, nil)
	for _, size := range []int{10, 3 << 20} {
		withImage := []llm.Message{{Role: llm.RoleUser, Content: "what is in this picture?",
			Images: []llm.Image{{MediaType: "image/png", Data: make([]byte, size)}}}}
		if got := EstimateTokens("", withImage, nil); got != base+ImageTokens {
			t.Errorf("%d-byte image: %d tokens, want %d", size, got, base+ImageTokens)
		}
	}
}

// TokenBound is never below the estimate, whatever the text: ASCII code,
// multi-byte scripts, emoji, texts long enough to be sampled, histories past
// the exact budget, images, tool calls and definitions. A bound below it
// would skip a compaction the estimate calls for.
func TestTokenBoundIsAnUpperBound(t *testing.T) {
	texts := []string{
		"func main() { fmt.Println(\"hello\") }",
		strings.Repeat("日本語のテキスト、", 300),
		strings.Repeat("🙂🚀 ", 500),
		strings.Repeat("a", 100<<10), // sampled: longer than maxExactPiece
		strings.Repeat("x y z 1 2 3 ", 40<<10),
		"",
	}
	var msgs []llm.Message
	for i := range 400 { // past exactBudget: some texts are priced, not counted
		txt := texts[i%len(texts)]
		m := llm.Message{Role: llm.RoleAssistant, Content: txt, Reasoning: texts[(i+1)%len(texts)]}
		switch i % 3 {
		case 1:
			m.ToolCalls = []llm.ToolCall{{ID: "c", Name: "read_file", Input: json.RawMessage(`{"path":"` + strings.Repeat("é", i) + `"}`)}}
		case 2:
			m = llm.Message{Role: llm.RoleTool, Name: "bash", ToolCallID: "c", Content: txt, Images: make([]llm.Image, i%2)}
		}
		msgs = append(msgs, m)
	}
	tools := []llm.ToolDef{{Name: "bash", Description: strings.Repeat("Runs a command. ", 40), InputSchema: json.RawMessage(`{"type":"object"}`)}}
	for n := 0; n <= len(msgs); n += 37 {
		est, bound := EstimateTokens(texts[1], msgs[:n], tools), TokenBound(texts[1], msgs[:n], tools)
		if bound < est {
			t.Fatalf("%d messages: bound %d < estimate %d", n, bound, est)
		}
	}
}
