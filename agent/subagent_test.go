package agent_test

import (
	"context"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/subagent"
)

// router sends a request to the script whose key its first user message
// contains (a sub-agent's prompt), else to the parent's script: parallel
// children each follow their own script whatever order they run in.
type router struct {
	parent *scripted.Provider
	kids   map[string]*scripted.Provider
}

func (r *router) Name() string { return "scripted" }

func (r *router) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	first := ""
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser {
			first = m.Content
			break
		}
	}
	for k, p := range r.kids {
		if strings.Contains(first, k) {
			return p.Stream(ctx, req)
		}
	}
	return r.parent.Stream(ctx, req)
}

func taskCall(id, agentName, prompt string) llm.ToolCall {
	c := scripted.Call(subagent.ToolName, map[string]any{"description": "look " + id, "prompt": prompt, "agent": agentName})
	c.ID = id
	return c
}

func (h *harness) subEngine(p llm.Provider, opts ...agent.Option) *agent.Engine {
	h.t.Helper()
	base := []agent.Option{agent.WithModel("test-model"), agent.WithWorkdir(h.dir), agent.WithStore(h.store),
		agent.WithTools(h.tools()...), agent.WithSubagents(subagent.Builtins())}
	e, err := agent.New(p, append(base, opts...)...)
	if err != nil {
		h.t.Fatal(err)
	}
	return e
}

// Two explore tasks of one Plan-Mode turn run at the same time (each
// child's model call waits until the other's has started), carry only
// read-only tools, cannot write even when they try, and are stored as
// children of the parent session; their events come back nested.
func TestSubagentsParallelInPlanMode(t *testing.T) {
	h := newHarness(t)
	var started sync.WaitGroup
	started.Add(2)
	barrier := func() scripted.Turn {
		return scripted.Turn{Respond: func(llm.Request) scripted.Turn {
			started.Done()
			started.Wait() // a child run alone would never get past this
			return scripted.Turn{Calls: []llm.ToolCall{write("pwned.txt", "x"), read("a.txt")}}
		}}
	}
	kidA := scripted.New(barrier(), scripted.Turn{Text: "A found alpha", Usage: llm.Usage{InputTokens: 100, OutputTokens: 10}})
	kidB := scripted.New(barrier(), scripted.Turn{Text: "B found beta", Usage: llm.Usage{InputTokens: 200, OutputTokens: 20}})
	parent := scripted.New(
		scripted.Turn{Calls: []llm.ToolCall{taskCall("t1", "", "TASK-A read a.txt"), taskCall("t2", "explore", "TASK-B read a.txt")}},
		scripted.Turn{Text: "Both done.", Match: scripted.All(scripted.LastToolResultContains("B found beta"))},
	)
	if err := writeFile(h.dir, "a.txt", "alpha\n"); err != nil {
		t.Fatal(err)
	}
	eng := h.subEngine(&router{parent: parent, kids: map[string]*scripted.Provider{"TASK-A": kidA, "TASK-B": kidB}},
		agent.WithMode(planning.ModePlan))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	evs := drain(t, eng.Run(ctx, "investigate"))
	wantDone(t, evs, agent.RunCompleted)

	if _, ok := h.file("pwned.txt"); ok {
		t.Fatal("a Plan-Mode sub-agent wrote pwned.txt")
	}
	// The parent saw task in Plan Mode; the children only read-only tools.
	if names := toolNames(parent.Requests()[0]); !slices.Contains(names, subagent.ToolName) {
		t.Errorf("parent's Plan-Mode tools %v lack task", names)
	}
	for _, kid := range []*scripted.Provider{kidA, kidB} {
		for _, req := range kid.Requests() {
			for _, n := range toolNames(req) {
				if !slices.Contains([]string{"read_file", "list_files", "search_files", "glob", "bash"}, n) {
					t.Errorf("an explore child was offered %s (tools %v)", n, toolNames(req))
				}
			}
		}
	}
	top := resultsOf(evs) // nested results are wrapped, so these are the parent's
	if len(top) != 2 || top[0].ID != "t1" || top[1].ID != "t2" || top[0].IsError || top[1].IsError {
		t.Fatalf("task results = %+v", top)
	}
	if !strings.Contains(top[0].Output, "A found alpha") || !strings.Contains(top[0].Output, "2 turns") ||
		!strings.Contains(top[0].Output, "a.txt") {
		t.Errorf("task result lacks the answer or record: %q", top[0].Output)
	}
	// Nested events name their task call; the children's write was refused.
	var nested []agent.Nested
	for _, ev := range evs {
		if n, ok := ev.(agent.Nested); ok {
			nested = append(nested, n)
		}
	}
	refused, tokens := 0, 0
	for _, n := range nested {
		if n.Parent != "t1" && n.Parent != "t2" {
			t.Errorf("nested event with parent %q", n.Parent)
		}
		if r, ok := n.Event.(agent.ToolResult); ok && r.Name == "write_file" && r.IsError {
			refused++
		}
		if u, ok := n.Event.(agent.UsageUpdate); ok {
			tokens += u.Usage.InputTokens + u.Usage.OutputTokens
		}
	}
	if refused != 2 {
		t.Errorf("refused nested writes = %d, want 2", refused)
	}
	if tokens != 330 {
		t.Errorf("nested usage = %d tokens, want 330", tokens)
	}
	// Transcripts: two child sessions linked to the parent, hidden from
	// the default list.
	kids, err := h.store.List(context.Background(), session.ListOptions{Parent: eng.SessionID()})
	if err != nil {
		t.Fatal(err)
	}
	if len(kids) != 2 {
		t.Fatalf("child sessions = %+v", kids)
	}
	for _, k := range kids {
		if k.ParentID != eng.SessionID() || k.MessageCount < 4 || !strings.HasPrefix(k.Title, "look t") {
			t.Errorf("child session %+v", k)
		}
	}
	top2, _ := h.store.List(context.Background(), session.ListOptions{})
	if len(top2) != 1 || top2[0].ID != eng.SessionID() {
		t.Errorf("default list = %+v, want only the parent", top2)
	}
}

// A general sub-agent may change files, so Plan Mode refuses it; outside
// Plan Mode it writes, and it cannot start a sub-agent of its own at the
// default depth.
func TestGeneralSubagentRefusedInPlanModeAndDepthLimit(t *testing.T) {
	h := newHarness(t)
	parent := scripted.New(
		scripted.Turn{Calls: []llm.ToolCall{taskCall("t1", "general", "TASK-G write it")}},
		scripted.Turn{Text: "refused", Match: scripted.LastToolResultContains("cannot run in Plan Mode")},
	)
	kid := scripted.New()
	eng := h.subEngine(&router{parent: parent, kids: map[string]*scripted.Provider{"TASK-G": kid}}, agent.WithMode(planning.ModePlan))
	wantDone(t, drain(t, eng.Run(context.Background(), "plan")), agent.RunCompleted)
	if len(kid.Requests()) != 0 {
		t.Fatal("a general sub-agent ran in Plan Mode")
	}

	h2 := newHarness(t)
	parent2 := scripted.New(
		scripted.Turn{Calls: []llm.ToolCall{taskCall("t1", "general", "TASK-G write it")}},
		scripted.Turn{Text: "ok", Match: scripted.LastToolResultContains("wrote it")},
	)
	kid2 := scripted.New(
		scripted.Turn{Calls: []llm.ToolCall{write("out.txt", "hi")}, Match: scripted.NoTool(subagent.ToolName)},
		scripted.Turn{Text: "wrote it"},
	)
	eng2 := h2.subEngine(&router{parent: parent2, kids: map[string]*scripted.Provider{"TASK-G": kid2}})
	wantDone(t, drain(t, eng2.Run(context.Background(), "go")), agent.RunCompleted)
	if got, _ := h2.file("out.txt"); got != "hi" {
		t.Fatalf("out.txt = %q", got)
	}
}

// With max depth 2 a child may delegate once more, and no further.
func TestSubagentDepthTwo(t *testing.T) {
	h := newHarness(t)
	parent := scripted.New(
		scripted.Turn{Calls: []llm.ToolCall{taskCall("t1", "explore", "TASK-1 go deeper")}},
		scripted.Turn{Text: "done"},
	)
	kid := scripted.New(
		scripted.Turn{Calls: []llm.ToolCall{taskCall("t2", "explore", "TASK-2 leaf")}, Match: scripted.HasTool(subagent.ToolName)},
		scripted.Turn{Text: "kid done"},
	)
	leaf := scripted.New(scripted.Turn{Text: "leaf done", Match: scripted.NoTool(subagent.ToolName)})
	eng := h.subEngine(&router{parent: parent, kids: map[string]*scripted.Provider{"TASK-1": kid, "TASK-2": leaf}},
		agent.WithSubagentLimits(0, 2, 0))
	evs := drain(t, eng.Run(context.Background(), "go"))
	wantDone(t, evs, agent.RunCompleted)
	if len(leaf.Requests()) != 1 {
		t.Fatalf("leaf requests = %d", len(leaf.Requests()))
	}
	deep := false
	for _, ev := range evs {
		if n, ok := ev.(agent.Nested); ok {
			if inner, ok := n.Event.(agent.Nested); ok && n.Parent == "t1" && inner.Parent == "t2" {
				deep = true
			}
		}
	}
	if !deep {
		t.Error("no doubly nested event from the grandchild")
	}
}

// Cancelling the parent stops a child whose model never answers.
func TestSubagentCancelledWithParent(t *testing.T) {
	h := newHarness(t)
	parent := scripted.New(scripted.Turn{Calls: []llm.ToolCall{taskCall("t1", "explore", "TASK-H hang")}})
	kid := scripted.New(scripted.Turn{Text: "thinking", Hang: true})
	eng := h.subEngine(&router{parent: parent, kids: map[string]*scripted.Provider{"TASK-H": kid}})
	ctx, cancel := context.WithCancel(context.Background())
	var evs []agent.Event
	for ev := range eng.Run(ctx, "go") {
		evs = append(evs, ev)
		if n, ok := ev.(agent.Nested); ok {
			if _, ok := n.Event.(agent.TextDelta); ok {
				cancel() // the child is mid-call
			}
		}
	}
	cancel()
	if d := doneOf(evs); d.Status != agent.RunCancelled {
		t.Fatalf("parent ended %s, want cancelled\n%s", d.Status, dump(evs))
	}
	childDone := false
	for _, ev := range evs {
		if n, ok := ev.(agent.Nested); ok {
			if d, ok := n.Event.(agent.Done); ok && d.Status == agent.RunCancelled {
				childDone = true
			}
		}
	}
	if !childDone {
		t.Errorf("the child did not end cancelled\n%s", dump(evs))
	}
}

func writeFile(dir, rel, content string) error {
	return os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644)
}

// What a general sub-agent changes is in its parent's undo: the parent's
// turn lists the child's files, and rewinding it removes the file the
// child made and restores the one it overwrote.
func TestGeneralSubagentChangesAreUndoable(t *testing.T) {
	h := newHarness(t)
	if err := os.WriteFile(filepath.Join(h.dir, "old.txt"), []byte("before"), 0o600); err != nil {
		t.Fatal(err)
	}
	parent := scripted.New(
		scripted.Turn{Calls: []llm.ToolCall{taskCall("t1", "general", "TASK-W write them")}},
		scripted.Turn{Text: "ok", Match: scripted.LastToolResultContains("wrote them")},
	)
	kid := scripted.New(
		scripted.Turn{Calls: []llm.ToolCall{write("new.txt", "made by the child"), write("old.txt", "after")}},
		scripted.Turn{Text: "wrote them"},
	)
	eng := h.subEngine(&router{parent: parent, kids: map[string]*scripted.Provider{"TASK-W": kid}})
	wantDone(t, drain(t, eng.Run(context.Background(), "go")), agent.RunCompleted)
	if got, _ := h.file("old.txt"); got != "after" {
		t.Fatalf("old.txt = %q before the undo", got)
	}
	turn, err := eng.LastTurn(context.Background())
	if err != nil || turn == 0 {
		t.Fatalf("the parent has no changing turn to undo (turn %d, %v)", turn, err)
	}
	if _, err := eng.Rewind(context.Background(), turn, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.file("old.txt"); got != "before" {
		t.Errorf("old.txt = %q after the undo, want %q", got, "before")
	}
	if _, err := os.Stat(filepath.Join(h.dir, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt survived the undo: %v", err)
	}
}
