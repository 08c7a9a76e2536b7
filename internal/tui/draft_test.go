package tui

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/harness9/harness9/agent"
)

// Ctrl+C with a draft puts the draft away into the history (file
// included) and does nothing else: the running turn goes on, and ↑ brings
// the draft back.
func TestCtrlCClearsTheDraftIntoHistory(t *testing.T) {
	f := newFake()
	f.block = true
	opts := testOptions(f)
	opts.HistoryFile = filepath.Join(t.TempDir(), "history")
	h := newHarness(t, opts, 80, 24)
	h.typeText("long task")
	h.key("enter")
	h.typeText("half a follow-up")
	h.key("ctrl+c")
	if !h.m.running {
		t.Fatal("the first Ctrl+C with a draft cancelled the turn")
	}
	if h.m.in.value() != "" {
		t.Fatalf("the draft is still in the editor: %q", h.m.in.value())
	}
	if data, _ := os.ReadFile(opts.HistoryFile); !strings.Contains(string(data), `"half a follow-up"`) {
		t.Errorf("history file:\n%s", data)
	}
	h.key("up")
	if got := h.m.in.value(); got != "half a follow-up" {
		t.Errorf("↑ after Ctrl+C: %q", got)
	}
	stopTurn(h)
}

// A queued message given back by a cancelled turn never overwrites a draft.
func TestCancelledQueueKeepsTheDraft(t *testing.T) {
	f := newFake()
	f.block = true
	h := newHarness(t, testOptions(f), 80, 24)
	h.typeText("long task")
	h.key("enter")
	h.typeText("queued one")
	h.key("enter")
	h.typeText("my draft")
	h.m.cancelRunning()
	h.waitIdle()
	if got := h.m.in.value(); got != "queued one\nmy draft" {
		t.Errorf("editor after cancelling: %q", got)
	}
}

// Quitting with a draft (two Ctrl+C) writes it to the history file.
func TestQuitKeepsTheDraft(t *testing.T) {
	opts := testOptions(newFake())
	opts.HistoryFile = filepath.Join(t.TempDir(), "history")
	h := newHarness(t, opts, 80, 24)
	h.run(h.m.openDialog(&choiceDialog{title: "Undo?", options: []string{"yes", "no"}, choose: func(*model, int) tea.Cmd { return nil }}))
	h.m.in.setValue("unsent words")
	h.key("ctrl+c") // closes the dialog
	_, cmd := h.m.Update(keyMsg("ctrl+c"))
	if cmd == nil || !h.m.quitting {
		t.Fatal("the second Ctrl+C did not quit")
	}
	var quit bool
	for _, msg := range runSequence(cmd) { // the history is written before the program quits
		_, quit = msg.(tea.QuitMsg)
	}
	if !quit {
		t.Error("the sequence does not end with tea.Quit")
	}
	if data, _ := os.ReadFile(opts.HistoryFile); !strings.Contains(string(data), `"unsent words"`) {
		t.Errorf("history file after quitting:\n%q", data)
	}
}

// A paste's line breaks are line breaks whether the terminal sent CR
// (tmux, most bracketed pastes), CRLF or LF, small or large: the editor's
// placeholder counts lines and the model gets LF.
func TestPasteLineBreaks(t *testing.T) {
	for _, n := range []int{3, 30, 120} {
		for name, br := range map[string]string{"cr": "\r", "crlf": "\r\n", "lf": "\n"} {
			t.Run(name+"_"+itoa(n), func(t *testing.T) {
				f := newFake()
				f.streams["run"] = []agent.Event{agent.Done{Status: agent.RunCompleted}}
				h := newHarness(t, testOptions(f), 80, 24)
				var lines []string
				for i := range n {
					lines = append(lines, "line "+itoa(i)+" of the pasted text, long enough to matter")
				}
				h.send(tea.PasteMsg{Content: strings.Join(lines, br)})
				if n > pasteMaxLines && !strings.Contains(h.m.in.value(), "[pasted #1: "+itoa(n)+" lines]") {
					t.Errorf("placeholder: %q", h.m.in.value())
				}
				h.key("enter")
				want := "run:" + strings.Join(lines, "\n")
				if !hasCall(f, want) {
					t.Errorf("sent %q", f.Calls())
				}
				if s := h.screen(); strings.Contains(s, `\x0d`) || strings.Contains(s, "\r") {
					t.Errorf("a carriage return reached the transcript:\n%s", s)
				}
			})
		}
	}
}

// runSequence runs the commands of a tea.Sequence in order (its message
// type is Bubble Tea's own) and returns their messages.
func runSequence(cmd tea.Cmd) []tea.Msg {
	msg := cmd()
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Slice {
		return []tea.Msg{msg}
	}
	var out []tea.Msg
	for i := range v.Len() {
		if c, ok := v.Index(i).Interface().(tea.Cmd); ok && c != nil {
			out = append(out, c())
		}
	}
	return out
}
