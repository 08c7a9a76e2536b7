package tui

import (
	"context"
	"encoding/json"
	"iter"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
)

// guarded makes h's dialogs guarded as in the program, with a timer the
// test fires: the returned func delivers every pending "armed" message.
func guarded(h *harness) (arm func()) {
	var pending []tea.Msg
	h.m.dialogDelay = DefaultDialogDelay
	h.m.after = func(d time.Duration, msg tea.Msg) tea.Cmd {
		if d != DefaultDialogDelay {
			h.t.Errorf("guard delay %v", d)
		}
		pending = append(pending, msg)
		return nil
	}
	return func() {
		msgs := pending
		pending = nil
		h.send(msgs...)
	}
}

// An Enter typed ahead (finishing a follow-up message as the plan review
// opens) approves nothing: the text and the Enter reach the dialog before
// it could be read, the text goes to the editor, which keeps it, and the
// dialog takes keys once its moment has passed.
func TestGuardReviewTypeAhead(t *testing.T) {
	f := newFake()
	f.streams["run"] = planEvents()
	h := newHarness(t, testOptions(f), 90, 30)
	arm := guarded(h)
	h.key("shift+tab")
	h.typeText("plan it")
	h.key("enter")
	if h.m.reviewOpen() == nil {
		t.Fatal("no review dialog")
	}
	h.typeText("also 2 tests")
	h.key("enter")
	h.key("1")
	if approved(f) || hasCall(f, "cancel-plan") || h.m.reviewOpen() == nil {
		t.Fatalf("a key typed ahead acted on the plan: %v", f.Calls())
	}
	if got := h.m.in.value(); got != "also 2 tests1" {
		t.Errorf("the editor holds %q, want the typed-ahead text", got)
	}
	if s := h.screen(); !strings.Contains(s, "your draft is kept in the editor: also 2 tests1") {
		t.Errorf("the draft is not shown under the dialog:\n%s", s)
	}
	arm()
	h.key("1")
	h.key("enter")
	if !hasCall(f, "approve:auto") {
		t.Fatalf("after its moment the dialog does not take keys: %v", f.Calls())
	}
	if got := h.m.in.value(); got != "also 2 tests1" {
		t.Errorf("approving lost the draft: %q", got)
	}
}

// A permission question opens with nothing picked: an Enter typed ahead
// does nothing, and even once the question can be read Enter alone
// allows nothing.
func TestGuardPermissionEnterAlone(t *testing.T) {
	f := newFake()
	req := func(id, path string) *agent.ApprovalRequest {
		return &agent.ApprovalRequest{Call: llm.ToolCall{ID: id, Name: "write_file", Input: json.RawMessage(`{"path":"` + path + `"}`)}}
	}
	first, second := req("a", "first.go"), req("b", "second.go")
	f.streams["run"] = []agent.Event{first, second}
	f.block = true
	h := newHarness(t, testOptions(f), 90, 30)
	arm := guarded(h)
	h.typeText("go")
	h.key("enter")
	t.Cleanup(func() { stopTurn(h) })
	if h.m.permOpen() == nil || h.m.permOpen().req != first {
		t.Fatal("no permission question")
	}
	h.key("enter")
	h.key("enter")
	arm()
	h.key("enter")
	if h.m.permOpen() == nil || h.m.permOpen().req != first {
		t.Fatalf("Enter answered the question")
	}
	if s := h.screen(); !strings.Contains(s, "Nothing is picked") {
		t.Errorf("no word about picking first:\n%s", s)
	}
	h.key("1")
	h.key("enter")
	// A quick second Enter must not answer the next question.
	if h.m.permOpen() == nil || h.m.permOpen().req != second {
		t.Fatalf("the second question is not open: %v", h.m.permOpen())
	}
	h.key("1")
	h.key("enter")
	if h.m.permOpen() == nil || h.m.permOpen().req != second {
		t.Fatal("keys typed as the second question opened answered it")
	}
	if s := h.screen(); strings.Count(s, "allowed") > 0 || strings.Contains(s, "denied") {
		t.Errorf("transcript:\n%s", s)
	}
	arm()
	h.key("3")
	h.key("enter")
	if h.m.permOpen() != nil {
		t.Fatal("3 Enter did not answer the second question")
	}
}

// A deciding dialog uncovered again (a question answered above it) is
// guarded anew: the Enter that answered the question does not, doubled,
// also answer the dialog under it.
func TestGuardUncoveredDialog(t *testing.T) {
	f := newFake()
	f.streams["run"] = []agent.Event{&agent.ApprovalRequest{Call: llm.ToolCall{ID: "a", Name: "bash", Input: json.RawMessage(`{"command":"make"}`)}}}
	f.block = true
	h := newHarness(t, testOptions(f), 90, 30)
	arm := guarded(h)
	chosen := -2
	h.run(h.m.openDialog(&choiceDialog{title: "Undo?", options: []string{"yes", "no"}, choose: func(_ *model, i int) tea.Cmd {
		chosen = i
		return nil
	}}))
	arm()
	h.typeText("go") // letters answer no dialog
	h.run(h.m.startStream(func(ctx context.Context) iter.Seq[agent.Event] { return f.Run(ctx, "go") }))
	if h.m.permOpen() == nil {
		t.Fatal("no permission question over the choice")
	}
	arm()
	h.key("1")
	h.key("enter")
	h.key("enter")
	if chosen != -2 {
		t.Fatalf("the Enter after the question answered the dialog under it: %d", chosen)
	}
	arm()
	h.key("enter")
	if chosen != 0 {
		t.Errorf("chosen %d after the guard", chosen)
	}
	stopTurn(h)
}

// stopTurn cancels the running turn and waits for its stream to end.
func stopTurn(h *harness) {
	h.m.cancelTurn()
	h.waitIdle()
}

// The trust question takes no key before its moment has passed: an Enter
// typed ahead neither declines nor trusts.
func TestGuardTrustQuestion(t *testing.T) {
	m := &trustModel{q: TrustQuestion{Workdir: "/w", Items: []string{"MCP server x: true"}}, cursor: 1, choice: TrustQuit}
	if m.Init() == nil {
		t.Fatal("the trust question has no guard")
	}
	for _, k := range []string{"1", "enter"} {
		if _, cmd := m.Update(keyMsg(k)); cmd != nil {
			t.Fatalf("%s typed ahead answered the question", k)
		}
	}
	m.Update(dialogArmedMsg{id: 0})
	m.Update(keyMsg("1"))
	if _, cmd := m.Update(keyMsg("enter")); cmd == nil || m.choice != TrustAccept {
		t.Fatalf("after the guard: choice %v", m.choice)
	}
}

// Once the user quit, while a print in flight reaches the terminal, keys
// act on nothing: the review open is not approved, Enter sends no prompt;
// text typed or pasted then stays in the editor (Run saves it).
func TestNothingActsWhileQuitting(t *testing.T) {
	h, f := planned(t)
	calls := len(f.Calls())
	h.m.printing = true
	h.m.quit()
	h.key("1")
	h.key("enter")
	h.typeText("late")
	h.send(tea.PasteMsg{Content: " words"})
	h.key("enter")
	if got := f.Calls()[calls:]; len(got) != 0 {
		t.Errorf("keys acted after quitting: %v", got)
	}
	if got := h.m.in.value(); got != "1late words" {
		t.Errorf("the editor holds %q, want what was typed and pasted after quitting", got)
	}
}
