package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
)

// sizes are the terminal sizes every dialog is checked at.
var sizes = []struct{ w, h int }{{80, 24}, {60, 20}, {200, 60}}

// bigPlan is a plan longer than any of the sizes: markdown content with a
// Go code block (tab-indented) and 25 steps.
func bigPlan() planning.Plan {
	var steps []string
	for i := range 25 {
		steps = append(steps, fmt.Sprintf("Step %d: change part %d of the parser and its tests", i+1, i+1))
	}
	content := "## Approach\nSplit the parser into a **lexer** and a parser.\n\n```go\nfunc Parse(s string) (*Node, error) {\n\tif s == \"\" {\n\t\treturn nil, errEmpty\n\t}\n\treturn parse(lex(s))\n}\n```\n\n- keep the public API\n- no new dependencies"
	return planning.Plan{Title: "Split the parser", Content: content, Steps: steps}
}

// checkFits fails when the screen is taller or wider than the terminal,
// or when the dialog's options are not all visible.
func checkFits(t *testing.T, h *harness, w, hgt int, must ...string) {
	t.Helper()
	s := h.screen()
	lines := strings.Split(s, "\n")
	if len(lines) > hgt {
		t.Errorf("%dx%d: the screen has %d lines", w, hgt, len(lines))
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			t.Errorf("%dx%d: line %d is %d columns wide: %q", w, hgt, i, ansi.StringWidth(l), l)
		}
	}
	for _, m := range must {
		if !strings.Contains(s, m) {
			t.Errorf("%dx%d: %q is not on screen:\n%s", w, hgt, m, s)
		}
	}
}

func reviewAt(t *testing.T, w, hgt int) (*harness, *fakeEngine) {
	t.Helper()
	f := newFake()
	p := bigPlan()
	f.streams["run"] = []agent.Event{
		agent.SessionStarted{SessionID: "0123456789abcdef", Mode: planning.ModePlan},
		agent.PlanSubmitted{Plan: p},
		agent.Done{Status: agent.RunAwaitingApproval},
	}
	h := newHarness(t, testOptions(f), w, hgt)
	h.key("shift+tab")
	h.typeText("split the parser")
	h.key("enter")
	if h.m.reviewOpen() == nil {
		t.Fatal("no review dialog")
	}
	return h, f
}

func TestGoldenReviewDialogSizes(t *testing.T) {
	for _, sz := range sizes {
		name := fmt.Sprintf("review_%dx%d", sz.w, sz.h)
		t.Run(name, func(t *testing.T) {
			h, _ := reviewAt(t, sz.w, sz.h)
			checkFits(t, h, sz.w, sz.h, "[1] Approve", "[4] Cancel", "Plan ready for review", "Approach")
			golden(t, name, h.screen())

			h.typeText("use a table")
			checkFits(t, h, sz.w, sz.h, "✎ use a table", "Enter sends the note")
			golden(t, name+"_note", h.screen())

			for range 11 {
				h.key("backspace")
			}
			for range 30 {
				h.key("pgdown")
			}
			checkFits(t, h, sz.w, sz.h, "Step 25", "[4] Cancel")

			h.key("4")
			h.key("enter")
			checkFits(t, h, sz.w, sz.h, "Cancel this plan?", "No, go back")
			golden(t, name+"_confirm", h.screen())
		})
	}
}

func TestGoldenPermissionDialogSizes(t *testing.T) {
	var content strings.Builder
	content.WriteString("package main\n\nimport \"fmt\"\n\nfunc main() {\n")
	for i := range 40 {
		fmt.Fprintf(&content, "\tfmt.Println(%d)\t// line %d\n", i, i)
	}
	content.WriteString("}\n")
	for _, sz := range sizes {
		name := fmt.Sprintf("permission_%dx%d", sz.w, sz.h)
		t.Run(name, func(t *testing.T) {
			f := newFake()
			f.streams["run"] = []agent.Event{
				agent.SessionStarted{SessionID: "0123456789abcdef", Mode: planning.ModeAutoEdit},
				agent.ToolCall{ID: "w1", Name: "write_file", Input: json.RawMessage(`{"path":"main.go"}`)},
				&agent.ApprovalRequest{Call: llm.ToolCall{ID: "w1", Name: "write_file", Input: json.RawMessage(`{"path":"main.go"}`)}, Preview: content.String()},
			}
			f.block = true
			h := newHarness(t, testOptions(f), sz.w, sz.h)
			h.typeText("write main.go")
			h.key("enter")
			if h.m.permOpen() == nil {
				t.Fatal("no permission dialog")
			}
			checkFits(t, h, sz.w, sz.h, "Allow write_file?", "[1] Allow once", "[3] Deny", "reason:")
			s := h.screen()
			// Tabs are expanded to tab stops: a tab-indented line starts
			// four columns in, and the comment is aligned.
			if sz.h >= 24 && !strings.Contains(s, "      fmt.Println(0)  // line 0") {
				t.Errorf("tabs in the preview are not expanded to tab stops:\n%s", s)
			}
			golden(t, name, s)
			h.typeText("use fmt.Printf")
			checkFits(t, h, sz.w, sz.h, "reason: use fmt.Printf")
			golden(t, name+"_reason", h.screen())
			h.key("ctrl+c")
			h.waitIdle()
		})
	}
}

func TestGoldenResumePickerSizes(t *testing.T) {
	for _, sz := range sizes {
		name := fmt.Sprintf("picker_%dx%d", sz.w, sz.h)
		t.Run(name, func(t *testing.T) {
			opts := testOptions(newFake())
			now := opts.Now()
			opts.Sessions = func() ([]SessionInfo, error) {
				var list []SessionInfo
				for i := range 30 {
					list = append(list, SessionInfo{ID: fmt.Sprintf("%08dabcd", i), Title: fmt.Sprintf("Session number %d about the parser", i),
						Updated: now.Add(-time.Duration(i) * time.Hour), Done: i % 4, Total: 3})
				}
				return list, nil
			}
			h := newHarness(t, opts, sz.w, sz.h)
			h.typeText("/resume")
			h.key("enter")
			if h.m.pickerOpen() == nil {
				t.Fatal("no picker")
			}
			checkFits(t, h, sz.w, sz.h, "Resume a session", "Esc close")
			golden(t, name, h.screen())
		})
	}
}

// Go code keeps its tab indentation once the answer is rendered as
// Markdown (a tab reaching the screen is drawn as nothing).
func TestGoldenGoCodeKeepsTabs(t *testing.T) {
	f := newFake()
	reply := "Here it is:\n\n```go\nfunc main() {\n\tif ok {\n\t\tfmt.Println(\"hi\")\n\t}\n}\n```\n"
	f.streams["run"] = []agent.Event{agent.TextDelta{Text: reply}, agent.Text{Text: reply}, agent.Done{Status: agent.RunCompleted}}
	h := newHarness(t, testOptions(f), 80, 24)
	h.typeText("show me")
	h.key("enter")
	s := h.screen()
	if strings.Contains(h.m.View().Content, "\t") {
		t.Error("a tab reached the screen")
	}
	if !strings.Contains(s, "    if ok {") || !strings.Contains(s, "        fmt.Println(\"hi\")") {
		t.Errorf("indentation lost:\n%s", s)
	}
	golden(t, "go_code_tabs", s)
}

// The undo question (files changed since the agent left them) and the
// trust question fit every size with their options visible; a draft typed
// ahead shows under a dialog.
func TestGoldenChoiceAndTrustSizes(t *testing.T) {
	for _, sz := range sizes {
		name := fmt.Sprintf("%dx%d", sz.w, sz.h)
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, testOptions(newFake()), sz.w, sz.h)
			var files []string
			for i := range 30 {
				files = append(files, fmt.Sprintf("internal/parser/file_%02d_with_a_long_name.go", i))
			}
			h.send(conflictsMsg{turn: 3, conflicts: files})
			if h.m.choiceOpen() == nil {
				t.Fatal("no undo question")
			}
			h.m.in.setValue("a draft typed ahead")
			checkFits(t, h, sz.w, sz.h, "Undo to before turn 3", "[1] skip those files", "[3] cancel", "your draft is kept in the editor: a draft typed ahead")
			golden(t, "undo_"+name, h.screen())

			m := &trustModel{q: TrustQuestion{Workdir: "/home/me/src/project", Items: files[:12]}, cursor: 1, width: sz.w, height: sz.h}
			out := normalise(m.render())
			if n := lineCount(out); n > sz.h {
				t.Errorf("the trust question has %d lines on %d", n, sz.h)
			}
			for _, o := range []string{"[1] Trust", "[2] Do not trust", "[3] Quit"} {
				if !strings.Contains(out, o) {
					t.Errorf("%s is not visible:\n%s", o, out)
				}
			}
			golden(t, "trust_"+name, out)
		})
	}
}
