package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
)

// failingTest is a 1,000-line go test output whose failure is at the end.
func failingTest() string {
	var b strings.Builder
	for i := 1; i <= 996; i++ {
		fmt.Fprintf(&b, "=== RUN   TestCase%04d\n", i)
	}
	b.WriteString("--- FAIL: TestCase0996 (0.00s)\n    parse_test.go:41: got 1, want 2\nFAIL\nexit code: 1")
	return b.String()
}

// The collapsed block of a failed command shows the end of its output
// (where the error is) and how to see the rest; Ctrl+O opens the whole
// output at its end, and the pager reaches every line of it.
func TestPagerLongFailingOutput(t *testing.T) {
	h := newHarness(t, testOptions(newFake()), 100, 30)
	h.m.handleEvent(agent.ToolCall{ID: "b", Name: "bash", Input: json.RawMessage(`{"command":"go test ./..."}`)})
	h.m.handleEvent(agent.ToolResult{ID: "b", Name: "bash", IsError: true, Output: failingTest(), Summary: "exit code: 1 · === RUN   TestCase0001 … (+999 lines)"})
	s := h.screen()
	for _, want := range []string{"parse_test.go:41: got 1, want 2", "exit code: 1", "Ctrl+O shows all 1000 lines"} {
		if !strings.Contains(s, want) {
			t.Errorf("collapsed block lacks %q:\n%s", want, s)
		}
	}
	h.key("ctrl+o")
	s = h.screen()
	if !strings.Contains(s, "exit code: 1") || !strings.Contains(s, "lines 973–1000 of 1000") {
		t.Fatalf("the pager did not open at the end of the output:\n%s", s)
	}
	h.key("g")
	if s = h.screen(); !strings.Contains(s, "TestCase0001") || !strings.Contains(s, "lines 1–28 of 1000") {
		t.Fatalf("g did not go to the top:\n%s", s)
	}
	h.key("/")
	h.typeText("testcase0500")
	h.key("enter")
	if s = h.screen(); !strings.Contains(s, "TestCase0500") || !strings.Contains(s, "match 1/1") {
		t.Fatalf("search did not find the line:\n%s", s)
	}
	h.key("/")
	h.typeText("FAIL")
	h.key("enter")
	if s = h.screen(); !strings.Contains(s, "--- FAIL: TestCase0996") || !strings.Contains(s, "match 1/2") {
		t.Fatalf("search for FAIL:\n%s", s)
	}
	h.key("n")
	if s = h.screen(); !strings.Contains(s, "match 2/2") {
		t.Fatalf("n:\n%s", s)
	}
	h.key("N")
	if s = h.screen(); !strings.Contains(s, "match 1/2") {
		t.Fatalf("N:\n%s", s)
	}
	h.key("G")
	if s = h.screen(); !strings.Contains(s, "lines 973–1000 of 1000") {
		t.Fatalf("G:\n%s", s)
	}
	h.key("q")
	if h.m.pager != nil {
		t.Fatal("q did not close the pager")
	}
	if s = h.screen(); !strings.Contains(s, "Ctrl+O shows all 1000 lines") {
		t.Errorf("after the pager:\n%s", s)
	}
}

// ←/→ go to the previous and next tool call; a running call shows its
// output so far and follows it as it grows.
func TestPagerMovesBetweenCalls(t *testing.T) {
	h := newHarness(t, testOptions(newFake()), 100, 30)
	h.m.handleEvent(agent.ToolCall{ID: "a", Name: "read_file", Input: json.RawMessage(`{"path":"a.go"}`)})
	h.m.handleEvent(agent.ToolResult{ID: "a", Name: "read_file", Output: "package a\nfunc A() {}"})
	h.m.handleEvent(agent.ToolCall{ID: "b", Name: "bash", Input: json.RawMessage(`{"command":"make"}`)})
	h.m.handleEvent(agent.ToolOutput{ID: "b", Text: "building step 1\n"})
	h.key("ctrl+o")
	if s := h.screen(); !strings.Contains(s, "call 2 of 2 · running · bash make") || !strings.Contains(s, "building step 1") {
		t.Fatalf("the newest call is not shown:\n%s", s)
	}
	h.m.handleEvent(agent.ToolOutput{ID: "b", Text: "building step 2\n"})
	if s := h.screen(); !strings.Contains(s, "building step 2") {
		t.Fatalf("the running output does not grow in the pager:\n%s", s)
	}
	h.key("left")
	if s := h.screen(); !strings.Contains(s, "call 1 of 2 · done · read_file a.go") || !strings.Contains(s, "func A() {}") {
		t.Fatalf("← did not show the previous call:\n%s", s)
	}
	h.key("left")
	if s := h.screen(); !strings.Contains(s, "this is the first one") {
		t.Errorf("← at the first call:\n%s", s)
	}
	h.key("esc")
	h.key("ctrl+t")
	if s := h.screen(); !strings.Contains(s, "Transcript") || !strings.Contains(s, "read_file a.go") {
		t.Errorf("Ctrl+T does not show the transcript:\n%s", s)
	}
}
