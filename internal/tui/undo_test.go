package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/memory"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// realEngine opens a real engine (in-memory store, which keeps
// checkpoints) over workdir with the scripted turns.
func realEngine(t *testing.T, workdir string, turns ...scripted.Turn) Options {
	t.Helper()
	p := scripted.NewHistory(turns...)
	opts := testOptions(nil)
	opts.NewEngine = func(string) (Engine, error) {
		ws, err := tool.NewWorkspace(workdir, tool.WithHome(""))
		if err != nil {
			return nil, err
		}
		return agent.New(p, agent.WithTools(builtin.NewWriteFile(ws), builtin.NewEditFile(ws)), agent.WithWorkspace(ws))
	}
	opts.Workdir = workdir
	return opts
}

func (h *harness) prompt(s string) {
	h.t.Helper()
	h.typeText(s)
	h.press("enter")
	h.waitIdle()
}

// press sends a key and delivers the results of the commands it started
// that did not finish at once (undo and memory do their I/O in commands;
// a loaded machine makes them late).
func (h *harness) press(k string) {
	h.t.Helper()
	h.key(k)
	for h.pending > 0 {
		h.wait()
	}
}

// /undo puts the files of the last turn back; a file the user changed
// since is asked about, and "skip" leaves it; /rewind picks an older turn.
func TestUndoAndRewindInTheTUI(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := realEngine(t, dir,
		scripted.Turn{Calls: scripted.Calls(scripted.Call("edit_file", map[string]any{"path": "a.txt", "old_string": "one", "new_string": "two"}))},
		scripted.Turn{Text: "edited"},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("write_file", map[string]any{"path": "b.txt", "content": "bee"}),
			scripted.Call("edit_file", map[string]any{"path": "a.txt", "old_string": "two", "new_string": "three"}))},
		scripted.Turn{Text: "written"},
	)
	h := newHarness(t, opts, 100, 30)
	h.prompt("edit a")
	h.prompt("write b")
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "<missing>"
		}
		return string(b)
	}
	if read("a.txt") != "three\n" || read("b.txt") != "bee" {
		t.Fatalf("the turns did not run: %q %q\n%s", read("a.txt"), read("b.txt"), h.screen())
	}
	// The user changes b.txt after the agent: /undo asks.
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.prompt("/undo")
	if h.m.choiceOpen() == nil || !strings.Contains(h.screen(), "b.txt") {
		t.Fatalf("no question about b.txt:\n%s", h.screen())
	}
	h.typeText("x2") // a letter does nothing, a digit only moves the cursor…
	h.key("up")      // …back to "skip"
	h.press("enter")
	if read("a.txt") != "two\n" || read("b.txt") != "mine" {
		t.Fatalf("after /undo with skip: a=%q b=%q", read("a.txt"), read("b.txt"))
	}
	if s := h.screen(); !strings.Contains(s, "restored: a.txt") || !strings.Contains(s, "skipped b.txt") {
		t.Fatalf("the transcript does not say what changed:\n%s", s)
	}
	// /rewind offers the one live turn left.
	h.prompt("/rewind")
	if h.m.choiceOpen() == nil || !strings.Contains(h.screen(), "turn 1: edit a") {
		t.Fatalf("no turn picker:\n%s", h.screen())
	}
	h.press("enter")
	if read("a.txt") != "one\n" {
		t.Fatalf("after /rewind: a=%q", read("a.txt"))
	}
	// The model is told on its next turn.
	var found bool
	for _, m := range h.m.eng.History() {
		if m.Role == llm.RoleUser && strings.Contains(m.Content, "The user undid file changes") {
			found = true
		}
	}
	if !found {
		t.Error("no rewind note in the history")
	}
}

// "# note" is not sent to the model: it asks where (once), writes the
// "- note" line, and the next turn's system prompt holds it.
func TestMemoryNoteInTheTUI(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	book := memory.New(dir, home)
	opts := testOptions(nil)
	fake := newFake()
	opts.NewEngine = func(string) (Engine, error) { return fake, nil }
	opts.Memory = &book
	h := newHarness(t, opts, 100, 30)
	h.typeText("# run make lint before committing")
	h.press("enter")
	if h.m.choiceOpen() == nil || !strings.Contains(h.screen(), "AGENTS.md") {
		t.Fatalf("no target question:\n%s", h.screen())
	}
	h.press("enter") // this project
	got, _ := os.ReadFile(filepath.Join(dir, "AGENTS.md"))
	if string(got) != "- run make lint before committing\n" {
		t.Fatalf("AGENTS.md = %q", got)
	}
	for _, c := range fake.Calls() {
		if strings.Contains(c, "lint") {
			t.Fatalf("the note reached the model: %v", fake.Calls())
		}
	}
	// Asked once: the next note only confirms.
	h.typeText("#second")
	h.press("enter")
	if s := h.screen(); !strings.Contains(s, "add to "+filepath.Join(dir, "AGENTS.md")) {
		t.Fatalf("no confirmation:\n%s", s)
	}
	h.key("2") // cancel
	h.press("enter")
	if got, _ := os.ReadFile(filepath.Join(dir, "AGENTS.md")); strings.Contains(string(got), "second") {
		t.Fatal("a cancelled note was written")
	}
	h.prompt("/memory")
	if s := h.screen(); !strings.Contains(s, "- run make lint before committing") {
		t.Fatalf("/memory:\n%s", s)
	}
}
