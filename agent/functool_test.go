package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/permission"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
)

type noteIn struct {
	Path string `json:"path" jsonschema:"the notes file"`
	Line string `json:"line" jsonschema:"the line to add"`
}

// noteTool appends a line to a file through the workspace, declaring what
// it changes and what the user approves, as docs/library.md shows.
func noteTool(ws *tool.Workspace) tool.Tool {
	return tool.New("add_note", "Add a line to a notes file.",
		func(_ context.Context, in noteIn) (tool.Result, error) {
			if _, err := ws.Append(in.Path, []byte(in.Line+"\n")); err != nil {
				return tool.Errorf("add_note: %v", err), nil
			}
			return tool.Text("added"), nil
		},
		tool.WithChangedFiles(func(in noteIn) []string { return []string{in.Path} }),
		tool.WithChangePreview(func(ctx context.Context, in noteIn) (tool.FileChange, bool) {
			return ws.PreviewText(ctx, in.Path, func(old string, _ bool) (string, bool) { return old + in.Line + "\n", true })
		}),
		tool.WithScope(func(in noteIn) tool.Scope { return tool.Scope{Path: in.Path} }),
		tool.WithSummary(func(in noteIn, _ tool.Result) string { return "added a line to " + in.Path }),
		tool.WithKind(tool.KindEdit),
	)
}

// A function tool that writes, declared with tool.New's options, is
// approved on a diff (AutoEdit asks before it), summarised, refused by a
// path rule, and its change is checkpointed: undo restores the file.
func TestFunctionToolThatWritesIsPreviewedAndCheckpointed(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(scripted.Call("add_note", map[string]any{"path": "NOTES.md", "line": "second"}))},
		scripted.Turn{Text: "done"},
	)
	if err := os.WriteFile(filepath.Join(h.dir, "NOTES.md"), []byte("first\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := tool.NewWorkspace(h.dir, tool.WithHome(h.home))
	if err != nil {
		t.Fatal(err)
	}
	h.extra = []tool.Tool{noteTool(ws)}
	e := h.engine(agent.WithMode(planning.ModeAutoEdit))
	var req *agent.ApprovalRequest
	var evs []agent.Event
	for ev := range e.Run(context.Background(), "note it") {
		if r, ok := ev.(*agent.ApprovalRequest); ok {
			req = r
			r.Respond(agent.AllowOnce, "")
		}
		evs = append(evs, ev)
	}
	wantDone(t, evs, agent.RunCompleted)
	if req == nil {
		t.Fatal("AutoEdit did not ask before a tool that changes a file")
	}
	if !strings.Contains(req.Preview, "+second") || !strings.Contains(req.Preview, "b/NOTES.md") || strings.Contains(req.Preview, `"line"`) {
		t.Errorf("the approval shows %q, want the diff", req.Preview)
	}
	if got, _ := h.file("NOTES.md"); got != "first\nsecond\n" {
		t.Fatalf("NOTES.md = %q", got)
	}
	if rs := resultsOf(evs); len(rs) != 1 || rs[0].Summary != "added a line to NOTES.md" {
		t.Errorf("results = %+v", rs)
	}
	turns, err := e.Turns(context.Background())
	if err != nil || len(turns) != 1 || len(turns[0].Files) != 1 || turns[0].Files[0] != "NOTES.md" {
		t.Fatalf("turns = %+v, %v", turns, err)
	}
	if _, err := e.Rewind(context.Background(), 1, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.file("NOTES.md"); got != "first\n" {
		t.Errorf("after undo NOTES.md = %q", got)
	}
}

// The scope a function tool declares is what permission rules match.
func TestFunctionToolScopeMeetsPathRules(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(
			scripted.Call("add_note", map[string]any{"path": "secret/x.md", "line": "no"}),
			scripted.Call("add_note", map[string]any{"path": "NOTES.md", "line": "yes"}))},
		scripted.Turn{Text: "done"},
	)
	ws, err := tool.NewWorkspace(h.dir, tool.WithHome(h.home))
	if err != nil {
		t.Fatal(err)
	}
	h.extra = []tool.Tool{noteTool(ws)}
	rules := permission.New(h.dir)
	if err := rules.Add(permission.Deny, "test", "add_note(secret/**)"); err != nil {
		t.Fatal(err)
	}
	evs := drain(t, h.engine(agent.WithPermissions(rules)).Run(context.Background(), "note"))
	rs := resultsOf(evs)
	if len(rs) != 2 || !rs[0].IsError || !strings.Contains(rs[0].Output, "deny rule") || rs[1].IsError {
		t.Fatalf("results = %+v", rs)
	}
	if _, ok := h.file("secret/x.md"); ok {
		t.Error("the denied call wrote its file")
	}
}
