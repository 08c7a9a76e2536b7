package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/hook"
	"github.com/harness9/harness9/llm/scripted"
)

func hookRunner(t *testing.T, dir string, hooks ...hook.Hook) *hook.Runner {
	t.Helper()
	r, err := hook.New(dir, hooks, hook.WithUnconfined(true))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A blocking pre_tool_use hook keeps the file off the disk, and the model
// reads the hook's reason and works around it.
func TestPreToolUseHookBlocksAndTheModelSeesWhy(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(scripted.Call("write_file", map[string]any{"path": "secret.env", "content": "x"}))},
		scripted.Turn{Match: scripted.LastToolResultContains("env files are off limits"),
			Calls: scripted.Calls(scripted.Call("write_file", map[string]any{"path": "notes.txt", "content": "y"}))},
		scripted.Turn{Text: "done"},
	)
	r := hookRunner(t, h.dir, hook.Hook{Event: hook.PreToolUse, Matcher: "write_file(**/*.env)",
		Command: "echo 'env files are off limits' >&2; exit 2"})
	evs := drain(t, h.engine(agent.WithHooks(r)).Run(context.Background(), "write things"))
	if d := doneOf(evs); d.Status != agent.RunCompleted {
		t.Fatalf("done %+v", d)
	}
	if _, ok := h.file("secret.env"); ok {
		t.Fatal("the blocked write happened")
	}
	if _, ok := h.file("notes.txt"); !ok {
		t.Fatal("the unmatched write did not happen")
	}
	var reported bool
	for _, ev := range evs {
		if hr, ok := ev.(agent.HookReport); ok && hr.Blocked && hr.Event == "pre_tool_use" {
			reported = true
		}
	}
	if !reported {
		t.Fatal("no HookReport for the block")
	}
}

// post_tool_use hooks see the result; a stop hook that blocks once makes
// the model go on; session_start runs once; user_prompt_submit sees the
// prompt.
func TestOtherHookEvents(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(scripted.Call("write_file", map[string]any{"path": "a.txt", "content": "hello"}))},
		scripted.Turn{Text: "finished"},
		scripted.Turn{Match: scripted.LastUserContains("run the tests first"), Text: "tests pass"},
	)
	log := filepath.Join(h.dir, "log")
	r := hookRunner(t, h.dir,
		hook.Hook{Event: hook.SessionStart, Command: "echo start >> log"},
		hook.Hook{Event: hook.UserPromptSubmit, Command: "jq -r .prompt >> log"},
		hook.Hook{Event: hook.PostToolUse, Matcher: "write_file", Command: "jq -r '.tool_response.output' >> log"},
		// Blocks the first stop only: stop_hook_active is true afterwards.
		hook.Hook{Event: hook.Stop, Command: "if jq -e .stop_hook_active >/dev/null; then echo stop-again >> log; exit 0; fi; echo 'run the tests first' >&2; exit 2"},
	)
	evs := drain(t, h.engine(agent.WithHooks(r)).Run(context.Background(), "write a"))
	if d := doneOf(evs); d.Status != agent.RunCompleted {
		t.Fatalf("done %+v", d)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{"start\nwrite a\n", "a.txt", "stop-again"} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "start\n") != 1 {
		t.Errorf("session_start ran more than once:\n%s", got)
	}
}

func TestUserPromptSubmitHookBlocks(t *testing.T) {
	h := newHarness(t, scripted.Turn{Text: "never"})
	r := hookRunner(t, h.dir, hook.Hook{Event: hook.UserPromptSubmit, Command: "grep -q password && { echo 'no passwords in prompts' >&2; exit 2; }; exit 0"})
	evs := drain(t, h.engine(agent.WithHooks(r)).Run(context.Background(), "my password is hunter2"))
	d := doneOf(evs)
	if d.Status != agent.RunError || !strings.Contains(d.Err.Error(), "no passwords in prompts") {
		t.Fatalf("done %+v", d)
	}
	if len(h.p.Requests()) != 0 {
		t.Fatal("the blocked prompt reached the model")
	}
}
