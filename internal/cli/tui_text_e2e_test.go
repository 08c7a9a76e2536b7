package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/llm"
)

// With --sandbox off the permission question says the user turned the
// sandbox off, not that it is missing (issue 24, item 2).
func TestTUISandboxOffIsSaidSo(t *testing.T) {
	h := newHarness(t)
	model := h.script(`{"turns": [{"calls": [{"name": "bash", "input": {"command": "echo hi"}}]}, {"text": "ok"}]}`)
	r := h.newTerm()
	r.start(100, 30, nil, "-C", h.workdir, "-m", model, "--sandbox", "off")
	r.waitText("SANDBOX OFF")
	r.send("say hi")
	s := r.waitText("Allow bash?")
	if !strings.Contains(s, "the kernel sandbox is turned off") || strings.Contains(s, "not available") {
		t.Errorf("the question does not say the sandbox was turned off:\n%s", s)
	}
}

// historyHas reports whether the TUI's input history file holds entry.
func historyHas(h *harness, entry string) bool {
	data, _ := os.ReadFile(filepath.Join(h.home, "history"))
	for _, line := range strings.Split(string(data), "\n") {
		var s string
		if json.Unmarshal([]byte(line), &s) == nil && s == entry {
			return true
		}
	}
	return false
}

// A draft is never lost (item 3): Ctrl+C during a turn puts it into the
// history and leaves the turn running; ↑ brings it back; Ctrl+C twice with
// a draft quits with the draft in the history.
func TestTUIDraftSurvivesCtrlC(t *testing.T) {
	h := newHarness(t)
	model := h.script(`{"turns": [{"text": "A long answer that streams slowly, piece by piece, for a while.", "chunk_size": 3, "delay_ms": 200}]}`)
	r := h.openTUI(100, 30, "-m", model)
	r.send("long task")
	r.waitText("A long")
	r.text("precious draft words")
	r.waitText("precious draft words")
	r.keys("C-c")
	s := r.waitText("draft cleared")
	if !strings.Contains(s, "running") {
		t.Errorf("the Ctrl+C that cleared the draft also stopped the turn:\n%s", s)
	}
	r.waitFor("the history file", func(string) bool { return historyHas(h, "precious draft words") })
	r.keys("Up")
	r.waitText("│ precious draft words")
	r.waitText("for a while.")
	r.keys("C-u")
	r.text("second draft")
	r.waitText("second draft")
	r.keys("C-c", "C-c")
	if code := r.exited(); code != 0 {
		t.Errorf("exit %d", code)
	}
	if !historyHas(h, "second draft") {
		data, _ := os.ReadFile(filepath.Join(h.home, "history"))
		t.Errorf("quitting lost the draft; history:\n%s", data)
	}
}

// A paste whose line breaks arrive as CR (tmux, most terminals) is a
// multi-line paste whatever its size (item 4): 30 and 120 lines show as
// "[pasted #N: … lines]" and reach the model with LF line breaks.
func TestTUIPasteWithCarriageReturns(t *testing.T) {
	h := newHarness(t)
	model := h.script(`{"turns": [{"text": "got the first"}, {"text": "got the second"}]}`)
	r := h.openTUI(100, 30, "-m", model)
	var want []string
	for i, n := range []int{30, 120} {
		var lines []string
		for j := 1; j <= n; j++ {
			lines = append(lines, fmt.Sprintf("paste %d line %d: some text of a log", i+1, j))
		}
		want = append(want, strings.Join(lines, "\n"))
		r.paste(strings.Join(lines, "\n"))
		r.waitText(fmt.Sprintf("[pasted #%d: %d lines]", i+1, n))
		r.keys("Enter")
		r.waitText(map[int]string{0: "got the first", 1: "got the second"}[i])
	}
	if s := r.all(); strings.Contains(s, `\x0d`) || strings.Contains(s, "^M") {
		t.Errorf("a carriage return reached the transcript:\n%s", s)
	}
	// What the model got, from the store.
	var users []string
	for _, m := range h.storedMessages(t) {
		if m.Role == llm.RoleUser {
			users = append(users, m.Content)
		}
	}
	if len(users) != 2 || users[0] != want[0] || users[1] != want[1] {
		t.Errorf("the prompts stored are not the pasted lines joined by LF:\n%q", users)
	}
}

// storedMessages is the newest session's history, read with sessions show.
func (h *harness) storedMessages(t *testing.T) []llm.Message {
	t.Helper()
	var list []struct{ ID string }
	deadline := time.Now().Add(10 * time.Second)
	for len(list) == 0 && time.Now().Before(deadline) {
		r := h.run("", "sessions", "list", "--json", "-C", h.workdir)
		_ = json.Unmarshal([]byte(r.stdout), &list)
		time.Sleep(100 * time.Millisecond)
	}
	if len(list) == 0 {
		t.Fatal("no session stored")
	}
	r := h.run("", "sessions", "show", list[0].ID, "--json")
	var d struct{ Messages []llm.Message }
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("sessions show: %v\n%s", err, r.stdout)
	}
	return d.Messages
}

// Whatever goes to the scrollback arrives whole and in order, and the live
// area under it stays intact, even when a block is taller than the screen
// or is printed while the live area fills the screen (a streamed answer
// longer than the terminal). Bubble Tea's print above the program assumes
// the block and the last drawn frame fit on the screen together; when they
// did not, the frame's rows were overwritten or welded into the
// scrollback and later frames drawn at the wrong place (the status bar
// half blank, a pasted chip not shown: TestTUIPasteWithCarriageReturns
// failed in CI so).
func TestTUIScrollbackStaysWhole(t *testing.T) {
	h := newHarness(t)
	answer, text := paragraphs("answer line %d of a long one", 60)
	model := h.script(fmt.Sprintf(`{"turns": [{"text": %s, "chunk_size": 60, "delay_ms": 5}, {"text": "short answer"}, {"text": "third answer"}]}`, text))
	r := h.openTUI(100, 20, "-m", model)
	r.send("write a lot")
	r.waitFor("the long answer to end", func(s string) bool {
		return strings.Contains(s, "answer line 60 of") && !strings.Contains(s, "running")
	})
	var pasted []string
	for i := 1; i <= 40; i++ {
		pasted = append(pasted, fmt.Sprintf("pasted line %d", i))
	}
	r.paste(strings.Join(pasted, "\n"))
	r.waitText("[pasted #1: 40 lines]")
	r.keys("Enter")
	r.waitText("short answer")
	r.send("and a third")
	r.waitFor("the third answer's run to end", func(s string) bool {
		return strings.Contains(s, "third answer") && !strings.Contains(s, "running")
	})
	// A printed block may show twice for a frame (scrollback.go): look once
	// the terminal has settled.
	all := r.poll("the third answer on the terminal once", r.all, func(all string) bool { return rowsEqual(all, "  third answer") == 1 })
	// Each row once, in order: the prompts, the answer, the pasted lines.
	want := []string{"> write a lot"}
	for _, l := range answer {
		want = append(want, "  "+l)
	}
	want = append(want, "> pasted line 1")
	for _, l := range pasted[1:] {
		want = append(want, "  "+l)
	}
	want = append(want, "  short answer", "> and a third", "  third answer")
	rows := trimmedRows(all)
	at := 0
	for i := range rows {
		if at < len(want) && rows[i] == want[at] {
			at++
		}
	}
	if at < len(want) {
		t.Fatalf("the terminal lost or reordered %q (and what follows it):\n%s", want[at], all)
	}
	for _, w := range want {
		if n := rowsEqual(all, w); n != 1 {
			t.Errorf("%q is on the terminal %d times:\n%s", w, n, all)
		}
	}
	// The live area is whole, at the bottom, and nowhere else.
	var status []int
	for i, l := range rows {
		if strings.Contains(l, "ctx ") && strings.Contains(l, "│") {
			status = append(status, i)
		}
	}
	screen := strings.Split(strings.TrimRight(r.screen(), "\n "), "\n")
	last := screen[len(screen)-1]
	if len(status) != 1 || !strings.HasPrefix(last, " DEFAULT ") || !strings.Contains(last, "ctx ") {
		t.Errorf("the status bar is not one whole line at the bottom (found on rows %v):\n%s", status, all)
	}
	if strings.Contains(all, "[pasted #1") {
		t.Errorf("a frame of the editor was left on the terminal:\n%s", all)
	}
}

// Quitting in the middle of a streamed answer keeps on the terminal what
// the user read: the live area is cleared when the program ends, and the
// rows it showed are written after it, each once.
func TestTUIQuitKeepsTheLiveAreaOnTheTerminal(t *testing.T) {
	h := newHarness(t)
	answer, text := paragraphs("streamed line %d of many", 40)
	model := h.script(fmt.Sprintf(`{"turns": [{"text": %s, "chunk_size": 20, "delay_ms": 80}]}`, text))
	r := h.openTUI(100, 20, "-m", model)
	r.send("write slowly")
	seen := r.waitFor("the answer's eighth line", func(s string) bool { return strings.Contains(s, "streamed line 8 of") })
	r.keys("C-c", "C-c")
	if code := r.exited(); code != 0 {
		t.Errorf("exit %d", code)
	}
	all := r.all()
	want := []string{"> write slowly"}
	for _, l := range answer[:8] {
		want = append(want, "  "+l)
	}
	for _, w := range want {
		if n := rowsEqual(all, w); n != 1 {
			t.Errorf("%q is on the terminal %d times after quitting (the screen before showed it):\n%s\n--- before quitting:\n%s", w, n, all, seen)
		}
	}
}

// paragraphs are n numbered lines (format has one %d), and the answer
// that holds them as paragraphs, as a JSON string for a script's turn.
func paragraphs(format string, n int) ([]string, []byte) {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf(format, i+1)
	}
	text, _ := json.Marshal(strings.Join(lines, "\n\n"))
	return lines, text
}

// trimmedRows are the rows of a terminal capture without trailing blanks.
func trimmedRows(capture string) []string {
	rows := strings.Split(capture, "\n")
	for i := range rows {
		rows[i] = strings.TrimRight(rows[i], " ")
	}
	return rows
}

// rowsEqual is how many of capture's rows are row (trailing blanks aside).
func rowsEqual(capture, row string) int {
	return strings.Count("\n"+strings.Join(trimmedRows(capture), "\n")+"\n", "\n"+row+"\n")
}
