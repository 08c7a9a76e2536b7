package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A dialog that decides something takes no key for a moment after it
// appears (issue 24, item 1). Each test below sends a key the moment the
// dialog shows, as a person finishing a sentence would, and checks that
// nothing was decided; then, once the moment has passed, that the dialog
// answers its keys.

// typingTurn is a first model turn that streams for about two seconds, so
// that the test can type while the agent works.
const typingTurn = `"text": "Looking at the project first, one file at a time.", "chunk_size": 4, "delay_ms": 150`

// An Enter typed as the plan review opens approves nothing; the message
// being typed stays in the editor.
func TestTUITypeAheadIntoPlanReview(t *testing.T) {
	h := newHarness(t)
	model := h.script(`{"turns": [
	  {` + typingTurn + `, "calls": [{"name": "submit_plan", "input": {"title": "Add a", "content": "## Approach\nWrite a.txt.", "steps": ["write a.txt"]}}]},
	  {"text": "Starting.", "calls": [{"name": "write_file", "input": {"path": "a.txt", "content": "A\n"}}]},
	  {"text": "Done."}
	]}`)
	r := h.openTUI(100, 30, "-m", model)
	r.keys("BTab")
	r.waitText("PLAN MODE")
	r.send("add a")
	r.waitText("Looking")
	r.text("also add tests")
	r.waitFast("Plan ready for review")
	r.keys("Enter")
	r.stays(300*time.Millisecond, "Plan ready for review", "Plan approved")
	if s := r.screen(); !strings.Contains(s, "your draft is kept in the editor: also add tests") {
		t.Errorf("the typed-ahead text is not kept:\n%s", s)
	}
	time.Sleep(600 * time.Millisecond)
	r.keys("1", "Enter")
	r.waitText("Plan approved")
}

// An Enter typed as a permission question opens answers nothing, nor does
// Enter alone once it can be read (nothing is picked); and keys typed as
// the next question opens do not answer it.
func TestTUITypeAheadIntoPermission(t *testing.T) {
	h := newHarness(t)
	model := h.script(`{"turns": [
	  {` + typingTurn + `, "calls": [{"name": "write_file", "input": {"path": "a.txt", "content": "A\n"}}, {"name": "write_file", "input": {"path": "b.txt", "content": "B\n"}}]},
	  {"text": "All done."}
	]}`)
	r := h.openTUI(100, 30, "-m", model)
	r.keys("BTab", "BTab")
	r.waitText("AUTO-EDIT")
	r.send("write both")
	r.waitText("Looking")
	r.text("more")
	r.waitFast("Allow write_file?")
	r.keys("Enter")
	r.stays(300*time.Millisecond, "Allow write_file?", "allowed")
	time.Sleep(600 * time.Millisecond)
	r.keys("Enter")
	r.waitText("Nothing is picked")
	if exists(filepath.Join(h.workdir, "a.txt")) {
		t.Fatal("Enter alone allowed the call")
	}
	// 1 Enter answers the first question; the same keys again, typed as
	// the second question opens, must not answer it.
	r.keys("1", "Enter")
	r.waitFast("Allow write_file?  b.txt")
	r.keys("1", "Enter")
	r.stays(300*time.Millisecond, "Allow write_file?  b.txt", "")
	if exists(filepath.Join(h.workdir, "b.txt")) {
		t.Fatal("keys typed as the second question opened allowed it")
	}
	time.Sleep(600 * time.Millisecond)
	r.keys("3", "Enter")
	r.waitText("All done.")
	if !exists(filepath.Join(h.workdir, "a.txt")) || exists(filepath.Join(h.workdir, "b.txt")) {
		t.Errorf("a.txt written %v (want true), b.txt written %v (want false)", exists(filepath.Join(h.workdir, "a.txt")), exists(filepath.Join(h.workdir, "b.txt")))
	}
}

// Keys typed as the trust question appears (at the shell, before harness9
// had started) grant nothing.
func TestTUITypeAheadIntoTrust(t *testing.T) {
	h := newHarness(t)
	marker := filepath.Join(h.workdir, "started")
	writeMCP(t, h.workdir, "touch "+marker, "")
	model := h.script(`{"turns": [{"text": "hello"}]}`)
	r := h.newTerm()
	r.start(100, 30, nil, "-C", h.workdir, "-m", model)
	r.waitFast("Trust this project?")
	r.keys("1", "Enter")
	r.stays(300*time.Millisecond, "Trust this project?", "DEFAULT")
	time.Sleep(600 * time.Millisecond)
	r.keys("Escape")
	r.waitText("DEFAULT")
	time.Sleep(500 * time.Millisecond)
	if exists(marker) {
		t.Fatal("keys typed ahead trusted the project")
	}
}

// An Enter typed as the /rewind picker opens undoes nothing.
func TestTUITypeAheadIntoUndo(t *testing.T) {
	h := newHarness(t)
	model := h.script(`{"turns": [
	  {"text": "Writing.", "calls": [{"name": "write_file", "input": {"path": "a.txt", "content": "A\n"}}]},
	  {"text": "Wrote it."}
	]}`)
	r := h.openTUI(100, 30, "-m", model, "--allow", "write_file")
	r.send("write a")
	r.waitText("Wrote it.")
	r.send("/rewind")
	r.waitFast("Rewind files to before a turn")
	r.keys("Enter")
	r.stays(300*time.Millisecond, "Rewind files to before a turn", "restored")
	if _, err := os.Stat(filepath.Join(h.workdir, "a.txt")); err != nil {
		t.Fatalf("an Enter typed ahead undid the turn: %v", err)
	}
	time.Sleep(600 * time.Millisecond)
	r.keys("Escape")
	r.waitFor("the picker to close", func(s string) bool { return !strings.Contains(s, "Rewind files to before a turn") })
	if _, err := os.Stat(filepath.Join(h.workdir, "a.txt")); err != nil {
		t.Fatalf("a.txt: %v", err)
	}
}
