package durablerunner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
)

// confirmTurns plan two files; executing, the model writes both and marks
// both done.
func confirmTurns() []scripted.Turn {
	return []scripted.Turn{
		{Text: "Plan ready.", Calls: scripted.Calls(scripted.Call("submit_plan", map[string]any{"title": "Two files",
			"content": "Write a and b.", "steps": []string{"write a.txt", "write b.txt"}}))},
		{Calls: scripted.Calls(
			scripted.Call("write_file", map[string]string{"path": "a.txt", "content": "a"}),
			scripted.Call("write_file", map[string]string{"path": "b.txt", "content": "b"}),
			scripted.Call("todo_write", map[string]any{"todos": []map[string]string{
				{"id": "1", "content": "write a.txt", "status": "completed"}, {"id": "2", "content": "write b.txt", "status": "cancelled"}}}))},
		{Text: "a.txt written; b.txt was refused."},
	}
}

// asksOf returns the ids of the pending asks a show answer lists.
func asksOf(show map[string]any) []string {
	var ids []string
	list, _ := show["permission_asks"].([]any)
	for _, a := range list {
		ids = append(ids, a.(map[string]any)["id"].(string))
	}
	return ids
}

// approve_confirm on the durable engine asks before each write, through
// the API: the ask reaches the event stream and the show answer as a
// local one does; the serve process that saw it goes away and another
// lists it from the workflow and takes the answer, once (a second answer
// is a conflict); a denial's reason reaches the model; nothing is written
// without a yes, and each call has one result.
func TestConfirmEachEditThroughTheAPIAcrossServers(t *testing.T) {
	e := newEnvWith(t, false, confirmTurns())
	first := e.serve()
	code, created := first.do("POST", "/api/sessions", e.tokA, map[string]any{"workdir": e.rootA, "mode": "plan", "prompt": "write two files"})
	if code != 201 {
		t.Fatalf("create: %d %v", code, created)
	}
	id := created["id"].(string)
	next := first.stream(id, e.tokA)
	next("state", map[string]any{"status": "awaiting_approval", "running": false})
	if code, body := first.do("POST", "/api/sessions/"+id+"/review", e.tokA, map[string]any{"choice": "approve_confirm"}); code != 200 {
		t.Fatalf("approve_confirm: %d %v", code, body)
	}
	evs := next("permission_ask", map[string]any{"tool": "write_file"})
	ask := evs[len(evs)-1]
	askA := ask["id"].(string)
	if p, _ := ask["preview"].(string); !strings.Contains(p, "a.txt") || ask["why"] == "" || ask["rules"] == nil {
		t.Fatalf("the ask: %v", ask)
	}
	if _, err := os.Stat(filepath.Join(e.rootA, "a.txt")); err == nil {
		t.Fatal("a.txt was written before the answer")
	}
	if _, show := first.do("GET", "/api/sessions/"+id, e.tokA, nil); strings.Join(asksOf(show), ",") != askA {
		t.Fatalf("show lists asks %v, want %s", asksOf(show), askA)
	}
	first.stop()

	b, c := e.serve(), e.serve()
	if _, show := b.do("GET", "/api/sessions/"+id, e.tokA, nil); strings.Join(asksOf(show), ",") != askA {
		t.Fatalf("a new server lists asks %v, want %s from the workflow", asksOf(show), askA)
	}
	if code, _ := b.do("POST", "/api/sessions/"+id+"/permissions/"+askA, e.tokB, map[string]any{"answer": "allow"}); code != 404 {
		t.Fatalf("token B answered root A's ask: %d", code)
	}
	if code, body := b.do("POST", "/api/sessions/"+id+"/permissions/"+askA, e.tokA, map[string]any{"answer": "allow"}); code != 200 {
		t.Fatalf("allow: %d %v", code, body)
	}
	if code, body := c.do("POST", "/api/sessions/"+id+"/permissions/"+askA, e.tokA, map[string]any{"answer": "deny"}); code != 409 {
		t.Fatalf("a second answer on another server: %d %v", code, body)
	}
	stream := c.stream(id, e.tokA)
	stream("permission_answered", map[string]any{"id": askA, "answer": "allow"})
	evs = stream("permission_ask", map[string]any{"tool": "write_file"})
	askB := evs[len(evs)-1]["id"].(string)
	if askB == askA {
		t.Fatalf("asked about %s again", askA)
	}
	if code, body := c.do("POST", "/api/sessions/"+id+"/permissions/"+askB, e.tokA, map[string]any{"answer": "deny", "reason": "b is not needed"}); code != 200 {
		t.Fatalf("deny: %d %v", code, body)
	}
	evs = stream("done", map[string]any{"status": "completed"})
	// The stream of the server that attached replays the workflow's
	// events: each ask once, each answer once.
	if count(evs, "permission_ask") != 2 || count(evs, "permission_answered") != 2 {
		t.Fatalf("events: %v", evs)
	}
	if got, err := os.ReadFile(filepath.Join(e.rootA, "a.txt")); err != nil || string(got) != "a" {
		t.Fatalf("a.txt: %q %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(e.rootA, "b.txt")); err == nil {
		t.Fatal("b.txt was written although denied")
	}
	msgs, err := e.store.Messages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	results := map[string][]string{}
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			results[m.ToolCallID] = append(results[m.ToolCallID], m.Content)
		}
	}
	for _, m := range msgs {
		for _, call := range m.ToolCalls {
			if len(results[call.ID]) != 1 {
				t.Errorf("call %s has %d results", call.ID, len(results[call.ID]))
			}
		}
	}
	if got := results[askB]; len(got) != 1 || got[0] != "the user denied this call: b is not needed" {
		t.Fatalf("the model saw %q for the denied write", got)
	}
}
