package agent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/lib/driver"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/permission"
	"github.com/harness9/harness9/planning"
)

// askingStep runs one hosted Tools step on a fresh engine of session id,
// with its own permission rules (as a worker whose configuration was read
// before the session's answers), and returns what it emitted, one line per
// event, and the question it left, if any.
func (h *harness) askingStep(id string, l *driver.Loop) (seen []string, asked *agent.ApprovalRequest) {
	h.t.Helper()
	eng := h.engine(agent.WithSession(id), agent.WithPermissions(permission.New(h.dir)))
	steps, err := driver.Hosted(eng, func(ev any) {
		switch ev := ev.(type) {
		case *agent.ApprovalRequest:
			asked = ev
			seen = append(seen, "ask "+ev.Call.ID)
		case agent.ToolCall:
			seen = append(seen, "call "+ev.ID)
		case agent.ToolResult:
			seen = append(seen, fmt.Sprintf("result %s error=%v", ev.ID, ev.IsError))
		case agent.Permission:
			seen = append(seen, fmt.Sprintf("permission %s %s", ev.ID, ev.Decision))
		}
	})
	if err != nil {
		h.t.Fatal(err)
	}
	r, err := steps.Tools(context.Background(), l)
	if err != nil || r.End != "" {
		h.t.Fatalf("tools step: %v, end %q", err, r.End)
	}
	return seen, asked
}

// On a host that cannot hold a step open while the user decides (a
// durable worker), a question ends the tools step: the calls before it
// have their results, it and those after it have none. Run again with the
// answer, the step goes on from that call without asking it again or
// reporting it twice; each call gets exactly one result; "always" answers
// reach the next fresh engine through the loop's memo.
func TestHostedToolsStepEndsAtAQuestionAndGoesOnWithTheAnswer(t *testing.T) {
	h := newHarness(t, scripted.Turn{Calls: scripted.Calls(
		scripted.Call("read_file", map[string]any{"path": "README"}),
		write("a.txt", "A"), write("b.txt", "B"), write("a.txt", "A2"),
		scripted.Call("bash", map[string]any{"command": "echo c > c.txt"}),
		scripted.Call("bash", map[string]any{"command": "echo d > d.txt"}),
	)})
	if err := os.WriteFile(filepath.Join(h.dir, "README"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	id := h.newSession()
	l := driver.Loop{Mode: planning.ModeAutoEdit, User: true}
	steps, err := driver.Hosted(h.engine(agent.WithSession(id)), func(any) {})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := steps.Prompt(ctx, &l, "write files"); err != nil {
		t.Fatal(err)
	}
	l.After = 1
	if _, err := steps.Model(ctx, &l); err != nil {
		t.Fatal(err)
	}
	calls := h.messages(id)[1].ToolCalls
	id1, idA, idB, idA2, idC, idD := calls[0].ID, calls[1].ID, calls[2].ID, calls[3].ID, calls[4].ID, calls[5].ID
	l.After = 2

	seen, asked := h.askingStep(id, &l)
	want := []string{"call " + id1, "result " + id1 + " error=false", "call " + idA, "permission " + idA + " asked", "ask " + idA}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") || asked == nil || asked.Call.ID != idA {
		t.Fatalf("first attempt: %q, asked %v; want the read, then the question about a.txt", seen, asked)
	}
	if _, ok := h.file("a.txt"); ok {
		t.Fatal("a.txt was written before its question was answered")
	}
	if n := len(h.messages(id)); n != 3 {
		t.Fatalf("%d messages stored, want the read's result only", n)
	}

	// The host puts the question to the user; "always" for a.txt.
	l.Answers = map[string]driver.Answer{idA: {Answer: "always"}}
	seen, asked = h.askingStep(id, &l)
	want = []string{"result " + idA + " error=false", "call " + idB, "permission " + idB + " asked", "ask " + idB}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") || asked == nil {
		t.Fatalf("with a.txt answered: %q; want its result, then the question about b.txt", seen)
	}
	if got, _ := h.file("a.txt"); got != "A" {
		t.Fatalf("a.txt = %q", got)
	}
	if len(l.Memo.Granted.Rules) != 1 || !strings.Contains(l.Memo.Granted.Rules[0], "a.txt") {
		t.Fatalf("granted %+v; want the always rule for a.txt carried in the memo", l.Memo.Granted)
	}

	// b.txt denied with a reason; the second write of a.txt runs unasked
	// on the next fresh engine (the always rule came with the memo); the
	// first bash line asks, "always" allows bash for the session (no
	// narrower rule covers a redirection), and the second runs unasked.
	l.Answers[idB] = driver.Answer{Answer: "deny", Reason: "not b, write c instead"}
	seen, asked = h.askingStep(id, &l)
	want = []string{"permission " + idB + " denied", "result " + idB + " error=true",
		"call " + idA2, "permission " + idA2 + " allowed", "result " + idA2 + " error=false",
		"call " + idC, "permission " + idC + " asked", "ask " + idC}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") || asked == nil || len(asked.Rules) != 0 {
		t.Fatalf("with b.txt denied:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
	l.Answers[idC] = driver.Answer{Answer: "always"}
	seen, asked = h.askingStep(id, &l)
	want = []string{"result " + idC + " error=false", "call " + idD, "permission " + idD + " allowed", "result " + idD + " error=false"}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") || asked != nil {
		t.Fatalf("with bash allowed for the session:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
	if len(l.Memo.Granted.Tools) != 1 || l.Memo.Granted.Tools[0] != "bash" {
		t.Fatalf("granted %+v; want bash allowed for the session", l.Memo.Granted)
	}
	if _, ok := h.file("b.txt"); ok {
		t.Fatal("the denied write ran")
	}
	results := map[string][]string{}
	for _, m := range h.messages(id) {
		if m.Role == llm.RoleTool {
			results[m.ToolCallID] = append(results[m.ToolCallID], m.Content)
		}
	}
	for _, c := range calls {
		if len(results[c.ID]) != 1 {
			t.Errorf("call %s (%s) has %d results", c.ID, c.Name, len(results[c.ID]))
		}
	}
	if got := results[idB]; len(got) != 1 || got[0] != "the user denied this call: not b, write c instead" {
		t.Fatalf("the model saw %q for the denied call", got)
	}
	// Everything is answered: running the step again does nothing.
	if seen, asked = h.askingStep(id, &l); len(seen) != 0 || asked != nil {
		t.Fatalf("a further attempt emitted %q", seen)
	}
}

// A question nobody answered in time is refused with the host's message;
// a run cancelled while its question waited ends that call and the rest
// as a cancelled local run does.
func TestHostedUnansweredAndCancelledQuestions(t *testing.T) {
	h := newHarness(t, scripted.Turn{Calls: scripted.Calls(write("a.txt", "A"), write("b.txt", "B"), write("c.txt", "C"))})
	ctx := context.Background()
	id := h.newSession()
	l := driver.Loop{Mode: planning.ModeAutoEdit, User: true}
	steps, _ := driver.Hosted(h.engine(agent.WithSession(id)), func(any) {})
	if _, err := steps.Prompt(ctx, &l, "write"); err != nil {
		t.Fatal(err)
	}
	l.After = 1
	if _, err := steps.Model(ctx, &l); err != nil {
		t.Fatal(err)
	}
	calls := h.messages(id)[1].ToolCalls
	l.After = 2
	if _, asked := h.askingStep(id, &l); asked == nil {
		t.Fatal("no question")
	}
	l.Answers = map[string]driver.Answer{calls[0].ID: {Unanswered: true, Reason: "nobody answered within 1h"}}
	if _, asked := h.askingStep(id, &l); asked == nil || asked.Call.ID != calls[1].ID {
		t.Fatalf("asked %v, want the second write", asked)
	}
	msgs := h.messages(id)
	if last := msgs[len(msgs)-1]; last.ToolCallID != calls[0].ID || !last.IsError || last.Content != "nobody answered within 1h" {
		t.Fatalf("the model saw %+v for the unanswered call", last)
	}

	// The second question waits; the run is cancelled meanwhile.
	l.Answers[calls[1].ID] = driver.Answer{Cancelled: true}
	eng := h.engine(agent.WithSession(id))
	steps, _ = driver.Hosted(eng, func(any) {})
	r, err := steps.Tools(ctx, &l)
	if r.End != driver.Cancelled || err == nil {
		t.Fatalf("cancelled step: end %q, err %v", r.End, err)
	}
	msgs = h.messages(id)
	if m := msgs[len(msgs)-2]; m.ToolCallID != calls[1].ID || m.Content != "write_file was cancelled while waiting for the user's approval" {
		t.Fatalf("the model saw %+v for the call cancelled while asking", m)
	}
	if m := msgs[len(msgs)-1]; m.ToolCallID != calls[2].ID || !strings.HasPrefix(m.Content, "cancelled: the run was stopped") {
		t.Fatalf("the model saw %+v for the call after it", m)
	}
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		if _, ok := h.file(f); ok {
			t.Errorf("%s was written", f)
		}
	}
}
