package compact

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/harness9/harness9/llm"
)

// bigResult is a tool result of about n bytes over many lines.
func bigResult(id string, n int) llm.Message {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%4d\tfunc handler_%s_%d(w http.ResponseWriter) error { return nil }\n", i+1, id, i)
	}
	return llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: "read_file", Content: b.String()}
}

// reads is a session of a prompt and n turns, each reading a file of
// about size bytes; the last result has not been seen by the model.
func reads(n, size int) []llm.Message {
	h := []llm.Message{user("port the handlers")}
	for i := range n {
		id := fmt.Sprintf("c%d", i)
		h = append(h, calls(id), bigResult(id, size))
	}
	return h
}

// sent is the history as a request carries it under sit.
func sent(sit Situation) []llm.Message {
	var out []llm.Message
	if sit.Summary != "" {
		out = append(out, SummaryMessage(sit.Summary))
	}
	for i := sit.Covered; i < len(sit.History); i++ {
		m := sit.History[i]
		if i < sit.Elided {
			m = Elide(m)
		}
		out = append(out, m)
	}
	return out
}

func histTokens(sit Situation) int { return EstimateTokens("", sent(sit), nil) }

// windowFor is a window whose threshold (80%) the request of sit passes
// by a little, with fixed tokens of system prompt and tools.
func windowFor(sit Situation, fixed int) int {
	return int(float64(fixed+histTokens(sit)) / 0.8 * 0.97)
}

func lastAssistant(h []llm.Message) int {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == llm.RoleAssistant {
			return i
		}
	}
	return -1
}

func TestPlanNothingUnderThreshold(t *testing.T) {
	sit := Situation{History: reads(3, 2000), Fixed: 1000, Window: 100_000}
	p, err := New(nil, "m").Plan(sit)
	if err != nil || p.Action != None {
		t.Fatalf("Plan = %+v, %v; want nothing to do", p, err)
	}
	if p.Threshold != 80_000 || p.BeforeTokens != histTokens(sit) || p.AfterTokens != p.BeforeTokens {
		t.Fatalf("Plan numbers = %+v", p)
	}
}

func TestPlanTrimsOldOutputsFirst(t *testing.T) {
	sit := Situation{History: reads(12, 3000), Fixed: 2000}
	sit.Window = windowFor(sit, sit.Fixed)
	p, err := New(nil, "m").Plan(sit)
	if err != nil {
		t.Fatal(err)
	}
	if p.Action != Trim || p.Reason != ReasonThreshold || p.Covered != 0 {
		t.Fatalf("Plan = %+v; want a trim", p)
	}
	after := sit
	after.Elided = p.Elided
	if got := histTokens(after); got != p.AfterTokens || sit.Fixed+got > p.LowWater {
		t.Fatalf("after the trim the history is %d tokens (plan says %d); with the fixed part %d it should be under the low-water mark %d",
			got, p.AfterTokens, sit.Fixed+got, p.LowWater)
	}
	// Oldest first and only as far as needed: the newest seen outputs
	// stay whole, and the unseen one is never touched.
	if p.Elided >= lastAssistant(sit.History) || p.Elided < 3 {
		t.Fatalf("Elided = %d of %d messages", p.Elided, len(sit.History))
	}
	if p.Shortened != p.Elided/2 { // the results at 2, 4, ...
		t.Fatalf("Shortened = %d; %d messages shortened or not", p.Shortened, p.Elided)
	}
	if p.LowWater >= p.Threshold || p.LowWater <= sit.Fixed {
		t.Fatalf("low water %d, threshold %d, fixed %d", p.LowWater, p.Threshold, sit.Fixed)
	}
}

func TestPlanSummarisesWhenTrimmingIsNotEnough(t *testing.T) {
	// Long assistant texts: nothing to shorten.
	h := []llm.Message{user("write the report")}
	for i := range 30 {
		h = append(h, text(fmt.Sprintf("Paragraph %d: %s", i, strings.Repeat("the quick brown fox jumps over the lazy dog ", 40))), user("go on"))
	}
	h = append(h, calls("x"), bigResult("x", 600))
	sit := Situation{History: h, Fixed: 1500}
	sit.Window = windowFor(sit, sit.Fixed)
	c := New(nil, "m", WithKeepRecent(6))
	p, err := c.Plan(sit)
	if err != nil {
		t.Fatal(err)
	}
	if p.Action != Summarise || p.Reason != ReasonThreshold {
		t.Fatalf("Plan = %+v; want a summary", p)
	}
	if err := pairsIntact(h, p.Covered); err != nil {
		t.Fatal(err)
	}
	if kept := len(h) - p.Covered; kept > 6 || kept < 2 {
		t.Fatalf("kept %d messages; want the last turn and at most keepRecent (6)", kept)
	}
	if p.AfterTokens >= p.BeforeTokens/4 {
		t.Fatalf("tokens %d → %d; the summary should take most of it out", p.BeforeTokens, p.AfterTokens)
	}
}

func TestPlanKeepsFewerRecentMessagesUnderTheMark(t *testing.T) {
	// Turns of long texts: keepRecent alone would keep most of them.
	h := []llm.Message{user("go")}
	for i := range 40 {
		h = append(h, text(fmt.Sprintf("%d %s", i, strings.Repeat("lorem ipsum dolor sit amet ", 60))), user("more"))
	}
	sit := Situation{History: h, Fixed: 500}
	sit.Window = windowFor(sit, sit.Fixed)
	p, err := New(nil, "m", WithKeepRecent(70)).Plan(sit)
	if err != nil || p.Action != Summarise {
		t.Fatalf("Plan = %+v, %v", p, err)
	}
	if kept := len(h) - p.Covered; kept >= 70 || kept < 2 {
		t.Fatalf("kept %d messages; the low-water mark should keep fewer than keepRecent", kept)
	}
	if sit.Fixed+p.AfterTokens > p.LowWater {
		t.Fatalf("after the summary: %d + %d tokens, over the low-water mark %d", sit.Fixed, p.AfterTokens, p.LowWater)
	}
}

func TestPlanWaitsForNewContentBeforeSummarisingAgain(t *testing.T) {
	// Just summarised: what follows the summary is a few short messages
	// (about 700 tokens) and a big unseen output that passes the threshold.
	h := reads(3, 300)
	for range 3 {
		h = append(h, text(strings.Repeat("word ", 120)), user(strings.Repeat("more ", 120)))
	}
	h = append(h, calls("big"), bigResult("big", 20_000))
	sit := Situation{History: h, Summary: SummaryHeader + "\nGoal: port.", Covered: 7, Fixed: 2000}
	sit.Window = int(float64(sit.Fixed+histTokens(sit)) / 0.9) // over the threshold, under the window
	p, err := New(nil, "m").Plan(sit)
	if err != nil {
		t.Fatal(err)
	}
	if p.Action == Summarise {
		t.Fatalf("Plan = %+v; a summary now would take out too little", p)
	}

	// The same history in a window it does not fit: summarise anyway.
	sit.Window = int(float64(sit.Fixed+histTokens(sit)) * 0.95)
	p, err = New(nil, "m").Plan(sit)
	if err != nil || p.Action != Summarise || p.Reason != ReasonWindow || p.Covered != len(h)-2 {
		t.Fatalf("Plan = %+v, %v; want a summary up to the last turn because of the window", p, err)
	}

	// Unless the last turn alone does not fit: a summary would not help,
	// and asking for one before every call would be the thrashing again.
	sit.Window = int(float64(sit.Fixed+EstimateTokens("", h[len(h)-2:], nil)) * 0.95)
	p, err = New(nil, "m").Plan(sit)
	if err != nil || p.Action == Summarise {
		t.Fatalf("Plan = %+v, %v; want no summary when the last turn alone passes the window", p, err)
	}
}

func TestPlanFixedPartTooLarge(t *testing.T) {
	sit := Situation{History: reads(1, 100), Fixed: 7000, Window: 8000}
	_, err := New(nil, "m").Plan(sit)
	if !errors.Is(err, ErrFixedPartTooLarge) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"7000 tokens", "6400", "80%", "8000-token"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	// A measured size above our estimate scales the fixed part with it.
	sit = Situation{History: reads(1, 100), Fixed: 4000, Window: 8000}
	sit.Tokens = 2 * (sit.Fixed + histTokens(sit))
	if _, err := New(nil, "m").Plan(sit); !errors.Is(err, ErrFixedPartTooLarge) {
		t.Fatalf("scaled: err = %v", err)
	}
}

func TestPlanManual(t *testing.T) {
	h := reads(6, 200)
	p, err := New(nil, "m", WithKeepRecent(2)).Plan(Situation{History: h, Fixed: 100, Window: 1 << 20, Manual: true})
	if err != nil || p.Action != Summarise || p.Reason != ReasonManual || p.Covered != len(h)-2 {
		t.Fatalf("Plan = %+v, %v", p, err)
	}
	_, err = New(nil, "m").Plan(Situation{History: h[1:3], Fixed: 100, Window: 1 << 20, Manual: true})
	if !errors.Is(err, ErrTooShort) {
		t.Fatalf("manual on the last turn only: err = %v", err)
	}
}

// TestPlanRandomHistories checks the rules that hold whatever the sizes:
// a summary never separates a tool call from its result and keeps the
// last turn; nothing the model has not seen is shortened; what is
// shortened or covered never shrinks.
func TestPlanRandomHistories(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := range 600 {
		var h []llm.Message
		for range 1 + r.IntN(30) {
			switch r.IntN(3) {
			case 0:
				h = append(h, user(strings.Repeat("u", r.IntN(2000))))
			case 1:
				h = append(h, text(strings.Repeat("t ", r.IntN(1000))))
			default:
				n := 1 + r.IntN(3)
				ids := make([]string, n)
				for i := range ids {
					ids[i] = string(rune('a' + r.IntN(4)))
				}
				h = append(h, calls(ids...))
				for _, id := range ids {
					h = append(h, bigResult(id, r.IntN(5000)))
				}
			}
		}
		sit := Situation{History: h, Fixed: r.IntN(3000), Manual: r.IntN(5) == 0}
		if c := r.IntN(4); c > 0 && len(h) > 2 {
			sit.Covered = SplitPoint(h, len(h)-r.IntN(len(h)))
			sit.Summary = SummaryHeader + "\nearlier"
			sit.Elided = sit.Covered + r.IntN(3)
		}
		sit.Window = 500 + r.IntN(20_000)
		p, err := New(nil, "m", WithKeepRecent(1+r.IntN(10))).Plan(sit)
		if errors.Is(err, ErrFixedPartTooLarge) || errors.Is(err, ErrTooShort) {
			continue
		}
		if err != nil {
			t.Fatalf("case %d: %v", iter, err)
		}
		last := lastAssistant(h)
		if p.Covered < sit.Covered || p.Elided < sit.Elided || p.Elided < p.Covered {
			t.Fatalf("case %d: %+v went back from %+v", iter, p, sit)
		}
		for i := max(sit.Elided, 0); i < p.Elided && i < len(h); i++ {
			if h[i].Role == llm.RoleTool && i > last {
				t.Fatalf("case %d: shortened result %d, which the model has not seen (last answer %d)", iter, i, last)
			}
		}
		if p.Action == Summarise {
			if err := pairsIntact(h, p.Covered); err != nil {
				t.Fatalf("case %d: %v", iter, err)
			}
			if last >= 0 && p.Covered > last {
				t.Fatalf("case %d: the summary covers the last turn (%d > %d)", iter, p.Covered, last)
			}
		}
	}
}

// TestPlanSmallWindowSimulation plays issue 33's session against the rule
// alone: an 8,000-token window half taken by the fixed part, twenty reads
// of about 1,500 tokens. Summaries are few, each takes out at least a
// quarter of the room, and no request passes the window.
func TestPlanSmallWindowSimulation(t *testing.T) {
	p := &fakeProvider{fn: func(llm.Request) (string, error) { return "**Goal**\nPort the handlers.", nil }}
	c := New(p, "m")
	const fixed, window = 4000, 8000
	var sit Situation
	sit.History = []llm.Message{user("port the handlers")}
	summaries := 0
	for i := range 20 {
		id := fmt.Sprintf("r%d", i)
		sit.History = append(sit.History, calls(id), bigResult(id, 6000))
		sit.Fixed, sit.Window = fixed, window
		plan, err := c.Plan(sit)
		if err != nil {
			t.Fatal(err)
		}
		switch plan.Action {
		case Summarise:
			res, err := c.Summarise(context.Background(), sit, plan, nil)
			if err != nil {
				t.Fatal(err)
			}
			summaries++
			if plan.Reason == ReasonThreshold && float64(plan.BeforeTokens-plan.AfterTokens) < minGainShare*float64(plan.Threshold-fixed)/2 {
				t.Errorf("turn %d: a summary that took out only %d tokens", i, plan.BeforeTokens-plan.AfterTokens)
			}
			sit.Summary, sit.Covered, sit.Elided = res.Summary, plan.Covered, plan.Elided
		case Trim:
			sit.Elided = plan.Elided
		}
		if n := fixed + histTokens(sit); n > window {
			t.Fatalf("turn %d: the request is %d tokens, over the window", i, n)
		}
	}
	if summaries < 1 || summaries > 3 {
		t.Fatalf("%d summaries for 20 reads; want 1 to 3", summaries)
	}
	if len(p.reqs) != summaries {
		t.Fatalf("%d summariser requests", len(p.reqs))
	}
	for _, r := range p.reqs {
		if r.MaxTokens > (6400-fixed)/2 {
			t.Errorf("a summary may take %d tokens, more than half the room", r.MaxTokens)
		}
		if n := EstimateTokens(r.System, r.Messages, nil) + r.MaxTokens; n > window {
			t.Errorf("the summariser's request (%d tokens with its answer) does not fit the window", n)
		}
	}
}

func TestElide(t *testing.T) {
	m := bigResult("x", 3000)
	e := Elide(m)
	first, _, _ := strings.Cut(m.Content, "\n")
	if !strings.HasPrefix(e.Content, first+"\n[older tool output shortened") || len(e.Content) > 300 {
		t.Fatalf("Elide = %q", e.Content)
	}
	lines := strings.Count(m.Content, "\n") - 1
	if !strings.Contains(e.Content, fmt.Sprintf("%d more lines (%d bytes)", lines, len(m.Content)-len(first))) {
		t.Fatalf("the note does not say what was left out: %q", e.Content)
	}
	if e.ToolCallID != m.ToolCallID || e.Name != m.Name || e.Role != m.Role {
		t.Fatalf("Elide changed the result's identity: %+v", e)
	}
	if Elide(e).Content != e.Content && len(e.Content) >= elideMinBytes {
		t.Fatal("Elide is not stable")
	}
	short := result("1")
	if Elide(short).Content != short.Content {
		t.Fatal("a short result was shortened")
	}
	if txt := text(strings.Repeat("x", 5000)); Elide(txt).Content != txt.Content {
		t.Fatal("an assistant message was shortened")
	}
	long := llm.Message{Role: llm.RoleTool, Content: strings.Repeat("é", 500) + "\nrest", Images: []llm.Image{{MediaType: "image/png", Data: []byte("x")}}}
	e = Elide(long)
	if len(e.Images) != 0 || !strings.Contains(e.Content, "and 1 image(s)") || !strings.Contains(e.Content, "… \n") && !strings.Contains(e.Content, " …\n") {
		t.Fatalf("Elide of a long first line with an image = %q", e.Content)
	}
}
