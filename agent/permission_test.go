package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/permission"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
)

// deleter is a custom tool that changes things and says nothing about
// being read-only or contained: what a user's own Go tool looks like.
func deleter(n *atomic.Int32) tool.Tool {
	return tool.New("delete_file", "deletes a file", func(context.Context, struct {
		Path string `json:"path"`
	}) (tool.Result, error) {
		n.Add(1)
		return tool.Text("deleted"), nil
	})
}

// answering plays a run, answers every ApprovalRequest with d and returns
// the events and the names of the calls that were put to the user.
func answering(t *testing.T, seq func(func(agent.Event) bool), d agent.Decision) (evs []agent.Event, asked []string) {
	t.Helper()
	for ev := range seq {
		if req, ok := ev.(*agent.ApprovalRequest); ok {
			asked = append(asked, req.Call.Name)
			req.Respond(d, "not now")
		}
		evs = append(evs, ev)
	}
	checkFraming(t, evs)
	return evs, asked
}

// In each mode, which calls are put to the user is decided by the tools'
// properties: a custom tool and an MCP tool without readOnlyHint are asked
// about outside Plan Mode (and kept out of it), file edits inside the
// workspace run unasked in Default and are asked about in AutoEdit, a
// read-only MCP tool is never asked about. A denied call does not run.
func TestModeDefaultsByProperty(t *testing.T) {
	const lookup, store = "mcp__kv__lookup", "mcp__kv__store"
	calls := []llm.ToolCall{
		scripted.Call("delete_file", map[string]string{"path": "a.txt"}),
		scripted.Call(store, map[string]string{"key": "k"}),
		scripted.Call(lookup, map[string]string{"key": "k"}),
		write("new.txt", "hello"),
	}
	cases := []struct {
		mode    planning.Mode
		asked   []string
		written bool
	}{
		{planning.ModePlan, nil, false},
		{planning.ModeDefault, []string{"delete_file", store}, true},
		{planning.ModeAutoEdit, []string{"delete_file", store, "write_file"}, false},
	}
	for _, c := range cases {
		t.Run(c.mode.String(), func(t *testing.T) {
			var deletes, writes atomic.Int32
			h := newHarness(t, scripted.Turn{Calls: calls}, scripted.Turn{Text: "done"})
			h.extra = append(mcpServer(t, &writes).Tools(), deleter(&deletes))
			eng := h.engine(agent.WithMode(c.mode))
			evs, asked := answering(t, eng.Run(context.Background(), "go"), agent.Deny)
			wantDone(t, evs, agent.RunCompleted)
			if strings.Join(asked, ",") != strings.Join(c.asked, ",") {
				t.Errorf("asked about %v, want %v", asked, c.asked)
			}
			if deletes.Load() != 0 || writes.Load() != 0 {
				t.Errorf("a refused call ran: %d deletes, %d MCP writes", deletes.Load(), writes.Load())
			}
			if _, ok := h.file("new.txt"); ok != c.written {
				t.Errorf("new.txt written = %v, want %v", ok, c.written)
			}
			res := resultsOf(evs)
			if res[2].IsError {
				t.Errorf("the read-only MCP tool was refused: %s", res[2].Output)
			}
			for _, p := range ofType[agent.Permission](evs) {
				if p.Decision == agent.PermissionAllowed {
					t.Errorf("no rule, yet a call was reported allowed: %+v", p)
				}
			}
		})
	}
}

// Rules decide before the mode: an allow rule lets an MCP tool run
// unasked in AutoEdit, a deny rule refuses a contained write in Default
// with a result naming the rule, an ask rule asks about a call the mode
// would run. Permission events name the rules.
func TestRulesBeforeModeDefaults(t *testing.T) {
	var writes atomic.Int32
	const store = "mcp__kv__store"
	h := newHarness(t,
		scripted.Turn{Calls: []llm.ToolCall{scripted.Call(store, map[string]string{"key": "k"}), write("secret/k.txt", "x"), write("src/a.go", "package a")}},
		scripted.Turn{Text: "done"})
	h.extra = mcpServer(t, &writes).Tools()
	rs := permission.New(h.dir)
	for a, rules := range map[permission.Action][]string{
		permission.Allow: {"mcp__kv__*", "write_file"},
		permission.Deny:  {"write_file(secret/**)"},
		permission.Ask:   {"write_file(src/**)"},
	} {
		if err := rs.Add(a, "test config", rules...); err != nil {
			t.Fatal(err)
		}
	}
	eng := h.engine(agent.WithMode(planning.ModeAutoEdit), agent.WithPermissions(rs))
	evs, asked := answering(t, eng.Run(context.Background(), "go"), agent.Deny)
	wantDone(t, evs, agent.RunCompleted)
	if writes.Load() != 1 {
		t.Errorf("the allowed MCP tool ran %d times, want 1", writes.Load())
	}
	if strings.Join(asked, ",") != "write_file" {
		t.Errorf("asked about %v, want only the src/ write (ask rule)", asked)
	}
	res := resultsOf(evs)
	if !res[1].IsError || !strings.Contains(res[1].Output, "write_file(secret/**)") || !strings.Contains(res[1].Output, "test config") {
		t.Errorf("denied write result = %+v; want an error naming the rule and its source", res[1])
	}
	if _, ok := h.file("secret/k.txt"); ok {
		t.Error("a denied write happened")
	}
	var got []string
	for _, p := range ofType[agent.Permission](evs) {
		got = append(got, string(p.Decision)+" "+p.Name+" "+p.Rule)
	}
	want := []string{
		"allowed mcp__kv__store mcp__kv__*",
		"denied write_file write_file(secret/**)",
		"asked write_file write_file(src/**)",
		"denied write_file ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("permission events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// "Always for this project" adds the suggested rule, hands it to the
// store, and the next call it covers runs unasked; a call it does not
// cover is still asked about.
func TestAllowProjectAddsARule(t *testing.T) {
	var deletes atomic.Int32
	del := func(p string) llm.ToolCall { return scripted.Call("delete_file", map[string]string{"path": p}) }
	h := newHarness(t,
		scripted.Turn{Calls: []llm.ToolCall{del("a")}},
		scripted.Turn{Calls: []llm.ToolCall{del("b"), write("x.txt", "1")}},
		scripted.Turn{Text: "done"})
	h.extra = []tool.Tool{deleter(&deletes)}
	rs := permission.New(h.dir)
	var saved []string
	eng := h.engine(agent.WithMode(planning.ModeAutoEdit), agent.WithPermissions(rs),
		agent.WithPermissionStore(func(rules []string) error { saved = append(saved, rules...); return nil }))
	evs, asked := answering(t, eng.Run(context.Background(), "go"), agent.AllowProject)
	wantDone(t, evs, agent.RunCompleted)
	if strings.Join(asked, ",") != "delete_file,write_file" {
		t.Errorf("asked about %v; want delete_file once, then write_file (x.txt)", asked)
	}
	if deletes.Load() != 2 {
		t.Errorf("deletes = %d, want 2", deletes.Load())
	}
	if strings.Join(saved, ",") != "delete_file,write_file(x.txt)" {
		t.Errorf("stored rules %q", saved)
	}
}

// Deny rules hold for read-only calls too, also when several run together,
// and a tool denied as a whole is not offered to the model.
func TestDenyRulesCoverReadOnlyBatches(t *testing.T) {
	read := func(p string) llm.ToolCall { return scripted.Call("read_file", map[string]string{"path": p}) }
	h := newHarness(t, scripted.Turn{Calls: []llm.ToolCall{read("open.txt"), read("secret/key.txt")}}, scripted.Turn{Text: "done"})
	for name, body := range map[string]string{"open.txt": "open", "secret/key.txt": "KEY-123"} {
		p := filepath.Join(h.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rs := permission.New(h.dir)
	if err := rs.Add(permission.Deny, "test config", "read_file(secret/**)", "glob"); err != nil {
		t.Fatal(err)
	}
	eng := h.engine(agent.WithPermissions(rs))
	evs := drain(t, eng.Run(context.Background(), "read"))
	res := resultsOf(evs)
	if len(res) != 2 || res[0].IsError || !res[1].IsError || strings.Contains(res[1].Output, "KEY-123") ||
		!strings.Contains(res[1].Output, "read_file(secret/**)") {
		t.Fatalf("results %+v", res)
	}
	for _, name := range toolNames(h.p.Requests()[0]) {
		if name == "glob" {
			t.Error("glob is denied as a whole but was offered to the model")
		}
	}
}
