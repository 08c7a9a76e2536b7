package tui

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
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

// An MCP prompt is a custom command Attach expands off the UI loop: its
// text and pictures reach the engine and its note the transcript; when
// the server fails, the error is shown and nothing is run.
func TestAttachExpandsMCPPrompt(t *testing.T) {
	f := &withRunWith{fakeEngine: newFake()}
	opts := testOptions(f)
	opts.Commands = []CustomCommand{{Name: "/mcp__srv__greet", Args: "<name>", Help: "Greets (MCP server srv)"}}
	pic := llm.Image{MediaType: "image/png", Data: []byte("\x89PNG")}
	opts.Attach = func(_ context.Context, p string) (Attachment, error) {
		name, ok := strings.CutPrefix(p, "/mcp__srv__greet ")
		switch {
		case !ok:
			return Attachment{Prompt: p}, nil
		case name == "fail":
			return Attachment{}, errors.New("MCP server srv: prompt greet: boom")
		}
		return Attachment{Prompt: "Say hello to " + name, Images: []llm.Image{pic}, Summary: "1 picture from the prompt"}, nil
	}
	h := newHarness(t, opts, 100, 40)
	h.typeText("/mcp__srv__greet Ada")
	h.key("enter")
	h.waitIdle()
	if !hasCall(f.fakeEngine, "runwith:Say hello to Ada") || len(f.opts.Images) != 1 {
		t.Fatalf("calls %v, images %d", f.Calls(), len(f.opts.Images))
	}
	if s := h.screen(); !strings.Contains(s, "/mcp__srv__greet Ada") || !strings.Contains(s, "1 picture from the prompt") {
		t.Errorf("transcript:\n%s", s)
	}
	calls := len(f.Calls())
	h.typeText("/mcp__srv__greet fail")
	h.key("enter")
	h.waitIdle()
	if len(f.Calls()) != calls {
		t.Errorf("a failed prompt still ran: %v", f.Calls())
	}
	if !strings.Contains(h.screen(), "boom") {
		t.Errorf("the error is not shown:\n%s", h.screen())
	}
}
