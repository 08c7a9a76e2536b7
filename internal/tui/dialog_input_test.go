package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/tool"
)

func bound(v float64) *float64 { return &v }

// elicitation is a server's question with a field of every kind.
func elicitation() *agent.InputRequest {
	return agent.NewInputRequest("c1", tool.Question{From: "MCP server everything", Message: "Please provide inputs", Fields: []tool.Field{
		{Name: "name", Title: "Name", Kind: tool.FieldString, Required: true, Description: "Your full name"},
		{Name: "check", Title: "Agree", Kind: tool.FieldBoolean},
		{Name: "n", Title: "Integer", Kind: tool.FieldInteger, Default: 42.0, Min: bound(1), Max: bound(100)},
		{Name: "hero", Title: "Hero", Kind: tool.FieldChoice, Default: "hero-1",
			Options: []tool.Option{{Value: "hero-1", Label: "Superman"}, {Value: "hero-2", Label: "Wonder Woman"}}},
		{Name: "fish", Title: "Fish", Kind: tool.FieldChoices, Options: []tool.Option{{Value: "f1", Label: "Tuna"}, {Value: "f2", Label: "Trout"}}},
	}})
}

// The form opens with the defaults, refuses to send a missing or invalid
// value (saying which), and sends typed values by field name.
func TestInputDialogForm(t *testing.T) {
	f := newFake()
	f.block = true
	req := elicitation()
	f.streams["run"] = []agent.Event{req}
	h := newHarness(t, testOptions(f), 100, 40)
	arm := guarded(h)
	h.typeText("go")
	h.key("enter")
	// Typed ahead as the question opens: answers nothing.
	h.typeText("x")
	h.key("enter")
	if _, open := findDialog[*inputDialog](h.m); !open {
		t.Fatalf("no input dialog:\n%s", h.screen())
	}
	arm()
	s := h.screen()
	for _, want := range []string{"MCP server everything asks for input", "Please provide inputs", "Your full name", "42", "Superman"} {
		if !strings.Contains(s, want) {
			t.Errorf("the form lacks %q:\n%s", want, s)
		}
	}
	h.key("enter")
	if !strings.Contains(h.screen(), "Name is required") {
		t.Fatalf("a missing value is not named:\n%s", h.screen())
	}
	h.typeText("Ada")
	h.key("tab")
	h.typeText("yes")
	h.key("tab")
	h.key("backspace")
	h.key("backspace")
	h.typeText("500")
	h.key("enter")
	if !strings.Contains(h.screen(), "Integer: out of range") {
		t.Fatalf("an out-of-range value is not refused:\n%s", h.screen())
	}
	for range 3 {
		h.key("backspace")
	}
	h.typeText("7")
	h.key("tab")
	h.key("tab")
	h.typeText("trout, Tuna")
	h.key("enter")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a, err := req.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "Ada", "check": true, "n": int64(7), "hero": "hero-1", "fish": []string{"f2", "f1"}}
	if a.Action != tool.Accept || len(a.Values) != len(want) {
		t.Fatalf("answer %+v", a)
	}
	for k, v := range want {
		if got := a.Values[k]; fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", v) {
			t.Errorf("%s = %#v, want %#v", k, got, v)
		}
	}
	if h.m.in.value() != "x" {
		t.Errorf("the typed-ahead text is not kept: %q", h.m.in.value())
	}
}

// Esc declines; Ctrl+C cancels.
func TestInputDialogDeclineAndCancel(t *testing.T) {
	for key, want := range map[string]tool.AnswerAction{"esc": tool.Decline, "ctrl+c": tool.Cancel} {
		f := newFake()
		f.block = true
		req := elicitation()
		f.streams["run"] = []agent.Event{req}
		h := newHarness(t, testOptions(f), 100, 40)
		h.typeText("go")
		h.key("enter")
		h.key(key)
		if a, _ := req.Wait(context.Background()); a.Action != want {
			t.Errorf("%s: %+v, want %s", key, a, want)
		}
		if !strings.Contains(h.screen(), "MCP server everything's request") {
			t.Errorf("%s: no note:\n%s", key, h.screen())
		}
	}
}
