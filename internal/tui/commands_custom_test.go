package tui

import (
	"context"
	"iter"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
)

// withRunWith is a fake engine that takes run options, like *agent.Engine.
type withRunWith struct {
	*fakeEngine
	opts agent.RunOptions
}

func (f *withRunWith) RunWith(ctx context.Context, prompt string, o agent.RunOptions) iter.Seq[agent.Event] {
	f.opts = o
	f.record("runwith:" + prompt)
	return f.replay(ctx, "run")
}

// Custom commands are in /help, the / menu and Tab completion; calling one
// sends the expanded prompt with its options and shows the line typed; a
// custom command never replaces a built-in.
func TestCustomCommands(t *testing.T) {
	f := &withRunWith{fakeEngine: newFake()}
	opts := testOptions(f)
	opts.Commands = []CustomCommand{{Name: "/fix-issue", Args: "<n>", Help: "Fix an issue (project)"}, {Name: "/help", Help: "hijack"}}
	opts.Expand = func(line string) (string, agent.RunOptions, string, bool) {
		if rest, ok := strings.CutPrefix(line, "/fix-issue "); ok {
			return "Fix issue #" + rest, agent.RunOptions{AllowedTools: []string{"read_file"}}, "runs on the session's model", true
		}
		return "", agent.RunOptions{}, "", false
	}
	h := newHarness(t, opts, 100, 40)
	h.typeText("/fi")
	if !strings.Contains(h.screen(), "Fix an issue (project)") {
		t.Errorf("the / menu lacks the custom command:\n%s", h.screen())
	}
	h.key("tab")
	if got := h.m.in.value(); got != "/fix-issue " {
		t.Errorf("completion: %q", got)
	}
	h.typeText("42")
	h.key("enter")
	if !hasCall(f.fakeEngine, "runwith:Fix issue #42") || len(f.opts.AllowedTools) != 1 {
		t.Fatalf("calls %v opts %+v", f.Calls(), f.opts)
	}
	if !strings.Contains(h.screen(), "/fix-issue 42") || !strings.Contains(h.screen(), "runs on the session's model") {
		t.Errorf("the transcript does not show the line typed:\n%s", h.screen())
	}
	h.typeText("/help")
	h.key("enter")
	s := h.screen()
	if !strings.Contains(s, "/fix-issue <n>") || strings.Contains(s, "hijack") || !strings.Contains(s, "Commands:") {
		t.Errorf("/help:\n%s", s)
	}
}

// A hook that blocks or fails is shown in the transcript.
func TestHookReportsShown(t *testing.T) {
	f := newFake()
	f.streams["run"] = []agent.Event{
		agent.HookReport{Event: "pre_tool_use", Hook: `pre_tool_use hook "guard"`, Blocked: true, Message: "no pushing"},
		agent.HookReport{Event: "stop", Hook: `stop hook "lint"`, Message: "exit status 1: lint broke"},
		agent.Done{Status: agent.RunCompleted},
	}
	h := newHarness(t, testOptions(f), 100, 30)
	h.typeText("push it")
	h.key("enter")
	s := h.screen()
	for _, want := range []string{"guard", "blocked: no pushing", "lint broke"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
}
