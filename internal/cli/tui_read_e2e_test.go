package cli_test

import (
	"regexp"
	"strings"
	"testing"
)

// The end of a 1,000-line failing output is where the error is (issue 24,
// item 5): the collapsed block shows it with a Ctrl+O hint, and Ctrl+O
// opens the whole output at its end, where the last line is reached; the
// pager goes to the top, searches and comes back.
func TestTUILongFailingOutput(t *testing.T) {
	h := newHarness(t)
	cmd := `for i in $(seq 1 1000); do echo "output line $i"; done; echo FINAL-FAILURE-LINE; exit 1`
	model := h.script(`{"turns": [{"calls": [{"name": "bash", "input": {"command": "` + strings.ReplaceAll(cmd, `"`, `\"`) + `"}}]}, {"text": "It failed."}]}`)
	r := h.openTUI(100, 30, "-m", model, "--allow", "bash")
	r.send("run it")
	s := r.waitText("It failed.")
	if !strings.Contains(s, "FINAL-FAILURE-LINE") || !strings.Contains(s, "Ctrl+O shows all") {
		t.Errorf("the collapsed block does not show the failure and the hint:\n%s", s)
	}
	r.keys("C-o")
	s = r.waitText("call 1 of 1 · failed")
	if !strings.Contains(s, "FINAL-FAILURE-LINE") || !regexp.MustCompile(`lines \d+–100\d of 100\d`).MatchString(s) {
		t.Errorf("the pager did not open at the end:\n%s", s)
	}
	r.keys("g")
	r.waitText("output line 1\n")
	r.keys("/")
	r.send("line 640")
	r.waitText("output line 640")
	r.keys("G")
	r.waitText("FINAL-FAILURE-LINE")
	r.keys("q")
	r.waitText("It failed.")
}

// Finished blocks go to the terminal's own scrollback (item 6): an answer
// longer than the screen scrolls out of it into the terminal's history,
// where the terminal's scrolling, search and selection reach it.
func TestTUIScrollbackHoldsTheConversation(t *testing.T) {
	h := newHarness(t)
	var rows []string
	for i := 1; i <= 60; i++ {
		rows = append(rows, "answer row "+itoa2(i))
	}
	model := h.script(`{"turns": [{"text": "` + strings.Join(rows, `\n\n`) + `"}]}`)
	r := h.openTUI(100, 30, "-m", model)
	r.send("first prompt here")
	// The answer is printed in parts once it ended: look when the last
	// part is there and the run is over.
	all := r.poll("the whole answer printed", r.all, func(all string) bool {
		return strings.Contains(all, "answer row 60") && strings.Contains(all, "answer row 01") && !strings.Contains(r.screen(), "running")
	})
	for _, want := range []string{"first prompt here", "answer row 01", "answer row 30", "answer row 60"} {
		if !strings.Contains(all, want) {
			t.Errorf("the terminal's scrollback lacks %q:\n%s", want, all)
		}
	}
	if s := r.screen(); strings.Contains(s, "answer row 01") {
		t.Errorf("the screen still shows the start of a 120-line answer:\n%s", s)
	}
}

func itoa2(i int) string {
	if i < 10 {
		return "0" + string(rune('0'+i))
	}
	return string(rune('0'+i/10)) + string(rune('0'+i%10))
}

// A sub-agent shows the call it is making while it runs, and Ctrl+O on
// its block lists its calls and its answer (item 7).
func TestTUISubagentShowsItsCalls(t *testing.T) {
	h := newHarness(t)
	model := h.script(`{"turns": [
	  {"when": {"first_user_contains": "TASK-SLEEP", "last_tool_result_contains": "slept"}, "text": "The child is done."},
	  {"when": {"first_user_contains": "TASK-SLEEP"}, "calls": [{"name": "bash", "input": {"command": "sleep 3; echo slept"}}]},
	  {"calls": [{"name": "task", "input": {"description": "sleeper", "prompt": "TASK-SLEEP: sleep a little", "agent": "general"}}]},
	  {"text": "The parent is done."}
	]}`)
	r := h.openTUI(120, 30, "-m", model, "--allow", "bash")
	r.send("delegate")
	r.waitText("▸ bash sleep 3; echo slept")
	r.waitText("The parent is done.")
	r.keys("C-o")
	s := r.waitText("Sub-agent")
	for _, want := range []string{"task sleeper", "1. ✓ bash sleep 3; echo slept", "The child is done."} {
		if !strings.Contains(s, want) {
			t.Errorf("Ctrl+O on the sub-agent lacks %q:\n%s", want, s)
		}
	}
}

// At 60 columns a permission question wraps a long line instead of cutting
// it, and the status bar keeps the mode, the sandbox's state and the
// tokens (item 8).
func TestTUINarrowTerminal(t *testing.T) {
	h := newHarness(t)
	long := "x := computeSomethingWithAVeryLongName(firstArgument, secondArgument) // END-OF-LONG-LINE"
	model := h.script(`{"turns": [
	  {"text": "Writing.", "usage": {"input_tokens": 23456, "output_tokens": 789}, "calls": [{"name": "write_file", "input": {"path": "x.go", "content": "` + strings.ReplaceAll(long, `"`, `\"`) + `\n"}}]},
	  {"text": "ok"}
	]}`)
	r := h.openTUI(60, 20, "-m", model, "--sandbox", "off")
	r.keys("BTab", "BTab")
	r.waitText("AUTO-EDIT")
	r.send("write x.go")
	s := r.waitText("Allow write_file?")
	flat := strings.NewReplacer("│", "", "↳", "", " ", "", "\n", "").Replace(s)
	if !strings.Contains(flat, strings.ReplaceAll(long, " ", "")) {
		t.Errorf("the long line is not shown whole:\n%s", s)
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	bar := lines[len(lines)-1]
	for _, want := range []string{"AUTO-EDIT", "SANDBOX OFF", "24.2k tok"} {
		if !strings.Contains(bar, want) {
			t.Errorf("the status bar lacks %q: %q", want, bar)
		}
	}
}
