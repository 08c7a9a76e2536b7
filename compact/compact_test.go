package compact

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/harness9/harness9/llm"
)

func TestSplitPointKeepsPairs(t *testing.T) {
	tests := []struct {
		name string
		h    []llm.Message
		keep int
		want int
	}{
		{"plain text", []llm.Message{user("a"), text("b"), user("c"), text("d")}, 2, 2},
		{"split lands on a result", []llm.Message{user("a"), calls("1"), result("1"), text("b")}, 2, 1},
		{"parallel results", []llm.Message{user("a"), text("x"), calls("1", "2", "3"), result("1"), result("2"), result("3"), text("b")}, 3, 2},
		{"split right after the call", []llm.Message{user("a"), calls("1"), result("1"), text("b"), user("c")}, 3, 1},
		{"back to back tool turns", []llm.Message{user("a"), calls("1"), result("1"), calls("2"), result("2"), calls("3"), result("3")}, 1, 5},
		{"everything is one tool turn", []llm.Message{calls("1", "2"), result("1"), result("2")}, 1, 0},
		{"too short", []llm.Message{user("a"), text("b")}, 5, 0},
		{"exactly keep", []llm.Message{user("a"), text("b")}, 2, 0},
		{"reused ids", []llm.Message{user("a"), calls("1"), result("1"), calls("1"), result("1"), text("c")}, 2, 3},
		{"missing ids", []llm.Message{user("a"), calls(""), result(""), calls(""), result(""), text("c")}, 2, 3},
		{"result far from its call", []llm.Message{user("a"), calls("1", "2"), result("1"), text("oops"), result("2"), text("c")}, 2, 1},
		{"unanswered call before split", []llm.Message{user("a"), calls("1"), user("stop"), text("ok")}, 2, 2},
		{"orphan result", []llm.Message{result("x"), user("a"), text("b")}, 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SplitPoint(tt.h, tt.keep)
			if got != tt.want {
				t.Errorf("SplitPoint = %d, want %d", got, tt.want)
			}
			if got > 0 {
				if err := pairsIntact(tt.h, got); err != nil {
					t.Error(err)
				}
				if len(tt.h)-got < tt.keep {
					t.Errorf("kept %d messages, want at least %d", len(tt.h)-got, tt.keep)
				}
			}
		})
	}
}

func TestSplitPointRandomHistories(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 2000 {
		var h []llm.Message
		for range r.IntN(30) {
			switch r.IntN(3) {
			case 0:
				h = append(h, user("u"))
			case 1:
				h = append(h, text("t"))
			default:
				n := 1 + r.IntN(3)
				ids := make([]string, n)
				for i := range ids {
					ids[i] = string(rune('a' + r.IntN(4))) // reused on purpose
				}
				h = append(h, calls(ids...))
				for _, id := range ids {
					h = append(h, result(id))
				}
			}
		}
		keep := 1 + r.IntN(8)
		k := SplitPoint(h, keep)
		if k == 0 {
			continue
		}
		if err := pairsIntact(h, k); err != nil {
			t.Fatalf("case %d (keep %d): %v", iter, keep, err)
		}
		if len(h)-k < keep {
			t.Fatalf("case %d: kept %d < %d", iter, len(h)-k, keep)
		}
	}
}

func TestCompactSummaryCarriesActiveTasks(t *testing.T) {
	p := &fakeProvider{fn: func(llm.Request) (string, error) {
		return "**Goal**\nShip it.\n\n**Progress**\nDone a.\n\n**Next Steps**\nDo b.\n\n**Key files and decisions**\n- a.go", nil
	}}
	c := New(p, "m1", WithKeepRecent(4))
	h := session(6)
	todos := todoList("[ ] Implement handler/user.go\n[>] Configure database connection")

	res, err := c.Compact(context.Background(), h, todos)
	if err != nil {
		t.Fatal(err)
	}
	if res.Fallback {
		t.Fatalf("unexpected fallback: %s", res.Note)
	}
	if err := pairsIntact(h, res.Keep); err != nil {
		t.Fatal(err)
	}
	want := SummaryHeader + "\n**Goal**\nShip it."
	if !strings.HasPrefix(res.Summary, want) {
		t.Errorf("summary starts %q, want prefix %q", res.Summary[:min(60, len(res.Summary))], want)
	}
	if !strings.HasSuffix(res.Summary, "\n\n## Active Tasks\n[ ] Implement handler/user.go\n[>] Configure database connection") {
		t.Errorf("summary lacks the Active Tasks block:\n%s", res.Summary)
	}
	if m := SummaryMessage(res.Summary); m.Role != llm.RoleUser || m.Content != res.Summary {
		t.Errorf("SummaryMessage = %+v", m)
	}

	if len(p.reqs) != 1 {
		t.Fatalf("provider called %d times, want 1", len(p.reqs))
	}
	req := p.reqs[0]
	if req.Model != "m1" || len(req.Tools) != 0 || len(req.Messages) != 1 || req.Messages[0].Role != llm.RoleUser {
		t.Errorf("summary request: model %q, %d tools, %d messages", req.Model, len(req.Tools), len(req.Messages))
	}
	for _, s := range []string{"**Goal**", "**Progress**", "**Next Steps**", "**Key files and decisions**"} {
		if !strings.Contains(req.System, s) {
			t.Errorf("system prompt lacks %s", s)
		}
	}
	tr := req.Messages[0].Content
	if !strings.Contains(tr, "Step 0: please implement handler 0") || !strings.Contains(tr, "-> read_file") || !strings.Contains(tr, "[tool result: edit_file]") {
		t.Errorf("transcript lacks the old messages:\n%.500s", tr)
	}
	if strings.Contains(tr, h[len(h)-1].Content) {
		t.Error("transcript contains a message that is kept verbatim")
	}
}

func TestCompactOmitsEmptyActiveTasks(t *testing.T) {
	p := &fakeProvider{fn: func(llm.Request) (string, error) { return "**Goal**\nx", nil }}
	c := New(p, "m")
	for _, todos := range []TodoInjector{nil, todoList(""), todoList("  \n")} {
		res, err := c.Compact(context.Background(), session(5), todos)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Summary, "Active Tasks") {
			t.Errorf("todos %#v: summary has an Active Tasks block:\n%s", todos, res.Summary)
		}
	}
}

func TestCompactFallbackKeepsActiveTasks(t *testing.T) {
	for name, fn := range map[string]func(llm.Request) (string, error){
		"provider error": func(llm.Request) (string, error) { return "", errors.New("503 overloaded") },
		"empty summary":  func(llm.Request) (string, error) { return "  ", nil },
	} {
		t.Run(name, func(t *testing.T) {
			c := New(&fakeProvider{fn: fn}, "m", WithKeepRecent(3))
			h := session(10)
			res, err := c.Compact(context.Background(), h, todoList("[>] Fix the build\n[ ] Write docs"))
			if err != nil {
				t.Fatal(err)
			}
			if !res.Fallback || res.Note == "" {
				t.Fatalf("Fallback=%v Note=%q, want a fallback with a note", res.Fallback, res.Note)
			}
			if name == "provider error" && !strings.Contains(res.Note, "503 overloaded") {
				t.Errorf("note %q does not say why", res.Note)
			}
			if err := pairsIntact(h, res.Keep); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(res.Summary, SummaryHeader+"\n") || !strings.Contains(res.Summary, "dropped") {
				t.Errorf("fallback summary does not say messages were dropped:\n%s", res.Summary)
			}
			if !strings.Contains(res.Summary, "Step 0: please implement handler 0") {
				t.Error("fallback summary lacks the first request")
			}
			if !strings.HasSuffix(res.Summary, "## Active Tasks\n[>] Fix the build\n[ ] Write docs") {
				t.Errorf("fallback summary lacks Active Tasks:\n%s", res.Summary)
			}
			if res.AfterTokens >= res.BeforeTokens {
				t.Errorf("tokens %d -> %d, want fewer", res.BeforeTokens, res.AfterTokens)
			}
		})
	}
}

func TestCompactTooShort(t *testing.T) {
	p := &fakeProvider{fn: func(llm.Request) (string, error) { return "x", nil }}
	_, err := New(p, "m").Compact(context.Background(), []llm.Message{user("hi"), text("hello")}, nil)
	if !errors.Is(err, ErrTooShort) {
		t.Fatalf("err = %v, want ErrTooShort", err)
	}
	if len(p.reqs) != 0 {
		t.Error("provider was called for a history too short to compact")
	}
}

func TestCompactCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := &fakeProvider{fn: func(llm.Request) (string, error) { cancel(); return "", context.Canceled }}
	_, err := New(p, "m").Compact(ctx, session(20), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled (no fallback on cancel)", err)
	}
}

func TestCompactLongSessionShrinks(t *testing.T) {
	p := &fakeProvider{fn: func(req llm.Request) (string, error) {
		return "**Goal**\nImplement 20 handlers with tests.\n\n**Progress**\nHandlers 0-197 propagate errors.\n\n**Next Steps**\nRun go test ./...\n\n**Key files and decisions**\n- internal/handler/h*.go: return err instead of nil", nil
	}}
	c := New(p, "m")
	h := session(200)
	res, err := c.Compact(context.Background(), h, todoList("[>] Run the tests\n[ ] Update the changelog"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("200-turn session: %d messages, keep from %d, tokens %d -> %d (transcript sent: %d bytes)",
		len(h), res.Keep, res.BeforeTokens, res.AfterTokens, len(p.reqs[0].Messages[0].Content))
	if res.AfterTokens >= res.BeforeTokens/10 {
		t.Errorf("tokens %d -> %d, want at least a tenfold reduction", res.BeforeTokens, res.AfterTokens)
	}
	if len(p.reqs[0].Messages[0].Content) > maxTranscript+4096 {
		t.Errorf("transcript is %d bytes, cap is %d", len(p.reqs[0].Messages[0].Content), maxTranscript)
	}
	if !strings.Contains(p.reqs[0].Messages[0].Content, "Step 0: please implement") {
		t.Error("capped transcript dropped the first request")
	}
}

func TestNeeded(t *testing.T) {
	c := New(nil, "m")
	tests := []struct {
		tokens, window int
		want           bool
	}{
		{80, 100, false}, {81, 100, true}, {1 << 20, 0, false}, {0, 100, false},
	}
	for _, tt := range tests {
		if got := c.Needed(tt.tokens, tt.window); got != tt.want {
			t.Errorf("Needed(%d, %d) = %v", tt.tokens, tt.window, got)
		}
	}
	if !New(nil, "m", WithThreshold(0.5)).Needed(51, 100) {
		t.Error("WithThreshold(0.5) not applied")
	}
}

func TestRefreshActiveTasksReplacesTheStaleBlock(t *testing.T) {
	stale := SummaryHeader + "\n**Goal:** x\n\n## Active Tasks\n[ ] old step\n[>] other"
	got := RefreshActiveTasks(stale, todoList("[>] new step"))
	want := SummaryHeader + "\n**Goal:** x\n\n## Active Tasks\n[>] new step"
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if got := RefreshActiveTasks(stale, todoList("")); strings.Contains(got, "Active Tasks") {
		t.Fatalf("an empty list must drop the block: %q", got)
	}
	if got := RefreshActiveTasks(SummaryHeader+"\nbody", todoList("[ ] a")); !strings.HasSuffix(got, "\n\n## Active Tasks\n[ ] a") {
		t.Fatalf("block not added: %q", got)
	}
}
