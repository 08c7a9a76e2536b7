package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
)

// approved reports whether the fake engine was asked to approve.
func approved(f *fakeEngine) bool {
	return hasCall(f, "approve:auto") || hasCall(f, "approve:confirm")
}

// The review dialog's key rules (DESIGN §5): typing never approves,
// cancels or moves the highlight; it writes the refine feedback.
func TestReviewTypingWritesFeedback(t *testing.T) {
	for _, sentence := range []string{"also add tests", "keep it simple", "jjk tab 2 then 1", "1 more thing", "4 spaces"} {
		t.Run(sentence, func(t *testing.T) {
			h, f := planned(t)
			h.typeText(sentence)
			if h.m.reviewOpen() == nil {
				t.Fatalf("typing closed the dialog")
			}
			if approved(f) || hasCall(f, "cancel-plan") {
				t.Fatalf("typing acted on the plan: %v", f.Calls())
			}
			h.key("enter")
			want := "run:" + strings.TrimSpace(sentence)
			if approved(f) || hasCall(f, "cancel-plan") || !hasCall(f, want) {
				t.Fatalf("Enter after typing: calls %v, want %q (refine)", f.Calls(), want)
			}
			if h.m.mode != planning.ModePlan {
				t.Errorf("refining left Plan Mode: %v", h.m.mode)
			}
		})
	}
}

func TestReviewLettersDoNotMoveTheCursor(t *testing.T) {
	h, f := planned(t)
	for _, k := range []string{"j", "k", "tab", "shift+tab", "y", "n", "q"} {
		h.key(k)
	}
	if h.m.reviewOpen() == nil || h.m.reviewOpen().cursor != 0 || approved(f) {
		t.Fatalf("letters acted: review %v calls %v", h.m.reviewOpen(), f.Calls())
	}
	// Backspace clears the note; then a digit chooses again.
	for range 10 {
		h.key("backspace")
	}
	if h.m.reviewOpen().typing() {
		t.Fatalf("note not cleared: %q", h.m.reviewOpen().note.Value())
	}
	h.key("down")
	if h.m.reviewOpen().cursor != 1 {
		t.Errorf("↓ did not move the highlight: %d", h.m.reviewOpen().cursor)
	}
}

func TestReviewEscKeepsThePlan(t *testing.T) {
	h, f := planned(t)
	h.typeText("half a thought")
	h.key("esc")
	if h.m.reviewOpen() != nil {
		t.Fatal("Esc did not close the dialog")
	}
	if hasCall(f, "cancel-plan") || approved(f) || f.Plan() == nil || h.m.plan == nil {
		t.Fatalf("Esc acted on the plan: %v", f.Calls())
	}
	if got := h.m.in.value(); got != "half a thought" {
		t.Errorf("the typed note was lost: editor holds %q", got)
	}
	if !strings.Contains(h.screen(), "/review reopens it") {
		t.Errorf("no hint about /review:\n%s", h.screen())
	}
	h.m.in.take()
	h.typeText("/review")
	h.key("enter")
	if h.m.reviewOpen() == nil {
		t.Fatal("/review did not reopen the dialog")
	}
	h.key("1")
	h.key("enter")
	if !hasCall(f, "approve:auto") {
		t.Errorf("approving after /review: %v", f.Calls())
	}
}

func TestReviewCancelAsksOnce(t *testing.T) {
	cases := []struct {
		keys   []string
		cancel bool
	}{
		{[]string{"4", "enter", "enter"}, false},      // No is highlighted
		{[]string{"4", "enter", "2", "enter"}, false}, // 2 picks No
		{[]string{"4", "enter", "esc"}, false},        // Esc goes back
		{[]string{"4", "enter", "y", "enter"}, false}, // letters never confirm
		{[]string{"4", "enter", "up", "enter"}, true}, // Yes highlighted
		{[]string{"down", "down", "down", "enter", "1", "enter"}, true},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.keys, ","), func(t *testing.T) {
			h, f := planned(t)
			for _, k := range c.keys {
				h.key(k)
			}
			if hasCall(f, "cancel-plan") != c.cancel || approved(f) {
				t.Fatalf("calls %v, want cancel %v", f.Calls(), c.cancel)
			}
			if !c.cancel && (h.m.reviewOpen() == nil || h.m.reviewOpen().confirming) {
				t.Errorf("the dialog did not return to the review")
			}
		})
	}
}

func TestReviewCtrlCClosesWithoutApproving(t *testing.T) {
	h, f := planned(t)
	h.key("ctrl+c")
	if h.m.reviewOpen() != nil || approved(f) || hasCall(f, "cancel-plan") || h.m.plan == nil {
		t.Fatalf("Ctrl+C: review %v calls %v", h.m.reviewOpen(), f.Calls())
	}
}

// A dialog the user closed never comes back by itself: not after a failed
// /continue, and the next Enter does not approve anything.
func TestClosedReviewDoesNotReopen(t *testing.T) {
	h, f := planned(t)
	h.key("esc")
	f.streams["continue"] = []agent.Event{
		agent.Error{Message: "agent: no approved plan to continue: the plan has not been approved yet"},
		agent.Done{Status: agent.RunError},
	}
	h.typeText("/continue")
	h.key("enter")
	if h.m.reviewOpen() != nil {
		t.Fatal("the review dialog reopened after /continue failed")
	}
	h.key("1")
	h.key("enter")
	if approved(f) {
		t.Fatalf("a key approved the plan with the dialog closed: %v", f.Calls())
	}
}

// Messages typed while a plan is made land in the review's note, not in a run.
func TestQueuedWhilePlanningBecomesNote(t *testing.T) {
	f := newFake()
	f.streams["run"] = planEvents()
	f.block = true
	h := newHarness(t, testOptions(f), 90, 30)
	h.key("shift+tab")
	h.typeText("plan it")
	h.key("enter")
	h.typeText("and use tabs")
	h.key("enter")
	if len(h.m.queue) != 1 {
		t.Fatalf("queue %v", h.m.queue)
	}
	h.key("esc") // interrupt: the blocked stream ends
	h.waitIdle()
	if h.m.reviewOpen() == nil || h.m.reviewOpen().note.Value() != "and use tabs" {
		t.Fatalf("review %v", h.m.reviewOpen())
	}
	if hasCall(f, "run:and use tabs") || approved(f) {
		t.Errorf("queued text was sent or approved: %v", f.Calls())
	}
}

func permissionHarness(t *testing.T, preview string) *harness {
	t.Helper()
	f := newFake()
	f.streams["run"] = []agent.Event{
		agent.ToolCall{ID: "w1", Name: "write_file", Input: json.RawMessage(`{"path":"main.go"}`)},
		&agent.ApprovalRequest{Call: llm.ToolCall{ID: "w1", Name: "write_file", Input: json.RawMessage(`{"path":"main.go"}`)}, Preview: preview},
	}
	f.block = true
	h := newHarness(t, testOptions(f), 90, 30)
	h.typeText("write it")
	h.key("enter")
	if h.m.permOpen() == nil {
		t.Fatal("no permission dialog")
	}
	t.Cleanup(func() {
		h.key("ctrl+c")
		h.waitIdle()
	})
	return h
}

func TestPermissionTypingWritesReason(t *testing.T) {
	h := permissionHarness(t, "package main\n")
	h.typeText("wrong file 1")
	if h.m.permOpen() == nil || h.m.permOpen().cursor != 2 || h.m.permOpen().reason.Value() != "wrong file 1" {
		t.Fatalf("typing: perm %+v", h.m.permOpen())
	}
	if !strings.Contains(h.screen(), "reason: wrong file 1") {
		t.Errorf("the reason is not shown whole:\n%s", h.screen())
	}
	h.key("enter")
	if h.m.permOpen() != nil || !strings.Contains(h.screen(), "denied write_file: wrong file 1") {
		t.Errorf("Enter did not deny with the reason:\n%s", h.screen())
	}
}

func TestPermissionLettersNeverAllow(t *testing.T) {
	h := permissionHarness(t, "package main\n")
	for _, k := range []string{"y", "a"} {
		h.key(k)
	}
	if h.m.permOpen() == nil || strings.Contains(h.screen(), "allowed") {
		t.Fatalf("a letter allowed the call")
	}
	if got := h.m.permOpen().reason.Value(); got != "ya" {
		t.Errorf("reason %q", got)
	}
	if h.m.permOpen().update(keyMsg("1")); h.m.permOpen().reason.Value() != "ya1" || h.m.permOpen().cursor != 2 {
		t.Errorf("a digit typed into a reason chose an option")
	}
}

func TestPermissionDenyReasonAfter3(t *testing.T) {
	h := permissionHarness(t, "package main\n")
	h.key("3")
	if h.m.permOpen() == nil || h.m.permOpen().cursor != 2 {
		t.Fatal("3 should pick Deny and wait for Enter")
	}
	if s := h.screen(); !strings.Contains(s, "reason: type why") {
		t.Errorf("the reason field's placeholder is cut:\n%s", s)
	}
	h.key("enter")
	if !strings.Contains(h.screen(), "denied write_file") {
		t.Errorf("Enter on Deny:\n%s", h.screen())
	}
}

func TestPermissionAllowOnce(t *testing.T) {
	h := permissionHarness(t, "package main\n")
	h.key("1")
	if h.m.permOpen() == nil {
		t.Fatal("a digit alone answered the dialog")
	}
	h.key("enter")
	if h.m.permOpen() != nil || strings.Contains(h.screen(), "denied") {
		t.Errorf("1 Enter did not allow")
	}
}

// Two questions at once (sub-agents in parallel): the second waits behind
// the first and opens when it is answered; none is dropped.
func TestPermissionQuestionsQueue(t *testing.T) {
	f := newFake()
	req := func(id, path string) *agent.ApprovalRequest {
		return &agent.ApprovalRequest{Call: llm.ToolCall{ID: id, Name: "write_file", Input: json.RawMessage(`{"path":"` + path + `"}`)}}
	}
	f.streams["run"] = []agent.Event{req("a", "first.go"), req("b", "second.go")}
	f.block = true
	h := newHarness(t, testOptions(f), 90, 30)
	h.typeText("go")
	h.key("enter")
	t.Cleanup(func() {
		h.key("ctrl+c")
		h.waitIdle()
	})
	if h.m.permOpen() == nil || h.m.permOpen().req.Call.ID != "a" || len(h.m.permQueue) != 1 {
		t.Fatalf("first question: perm %v, queue %d", h.m.permOpen(), len(h.m.permQueue))
	}
	h.key("1")
	h.key("enter")
	if h.m.permOpen() == nil || h.m.permOpen().req.Call.ID != "b" {
		t.Fatalf("the second question did not open after the first was answered: %v", h.m.permOpen())
	}
	if !strings.Contains(h.screen(), "second.go") {
		t.Errorf("screen:\n%s", h.screen())
	}
	h.key("esc")
	if h.m.permOpen() != nil || len(h.m.permQueue) != 0 {
		t.Errorf("after both answers: perm %v, queue %d", h.m.permOpen(), len(h.m.permQueue))
	}
}
