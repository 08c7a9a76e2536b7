package hook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/permission"
	"github.com/harness9/harness9/sandbox"
)

// newRunner runs hooks unconfined unless sb is given.
func newRunner(t *testing.T, dir string, hooks []Hook, opts ...Option) *Runner {
	t.Helper()
	r, err := New(dir, hooks, append([]Option{WithUnconfined(true)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestBlockPassesStderrAndStopsLaterHooks(t *testing.T) {
	dir := t.TempDir()
	r := newRunner(t, dir, []Hook{
		{Event: PreToolUse, Command: "echo 'no pushing today' >&2; exit 2"},
		{Event: PreToolUse, Command: "touch later"},
	})
	out := r.Run(context.Background(), Event{Name: PreToolUse, ToolName: "bash"})
	if !out.Blocked || out.Reason != "no pushing today" {
		t.Fatalf("outcome %+v, want blocked with the hook's stderr", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "later")); err == nil {
		t.Fatal("a hook after the blocking one ran")
	}
}

// A hook written for Claude Code blocks by printing a JSON decision and
// exiting 0; an "allow" or "approve" decides nothing, and plain stdout is
// ignored.
func TestJSONDecisionOnStdout(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		cmd, reason string
		block       bool
	}{
		{`echo '{"decision": "block", "reason": "tests first"}'`, "tests first", true},
		{`printf '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "not on main"}}\n'`, "not on main", true},
		{`echo '{"decision": "block"}'`, "blocked by the", true},
		{`echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'`, "", false},
		{`echo '{"decision": "approve", "reason": "fine"}'`, "", false},
		{`echo 'decision: block'`, "", false},
		{`echo '{"decision": "block"'`, "", false}, // not JSON: nothing decided
		{`echo '{"decision": "block", "reason": "exit 1 wins"}'; exit 1`, "", false},
	} {
		r := newRunner(t, dir, []Hook{{Event: PreToolUse, Command: c.cmd}, {Event: PreToolUse, Command: "touch after"}})
		out := r.Run(context.Background(), Event{Name: PreToolUse, ToolName: "bash"})
		if out.Blocked != c.block || c.block && !strings.Contains(out.Reason, c.reason) {
			t.Errorf("%s: outcome %+v, want blocked=%v with %q", c.cmd, out, c.block, c.reason)
		}
		_, err := os.Stat(filepath.Join(dir, "after"))
		if c.block == (err == nil) {
			t.Errorf("%s: the next hook ran=%v, want %v", c.cmd, err == nil, !c.block)
		}
		os.Remove(filepath.Join(dir, "after"))
	}
}

func TestOtherExitIsAFailureAndTheNextHookRuns(t *testing.T) {
	dir := t.TempDir()
	r := newRunner(t, dir, []Hook{
		{Event: Stop, Command: "echo broken >&2; exit 1", Source: "cfg"},
		{Event: Stop, Command: "touch next"},
	})
	out := r.Run(context.Background(), Event{Name: Stop})
	if out.Blocked || len(out.Failures) != 1 || !strings.Contains(out.Failures[0].Message, "exit status 1: broken") {
		t.Fatalf("outcome %+v, want one failure naming exit status 1 and stderr", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "next")); err != nil {
		t.Fatal("the hook after a failed one did not run")
	}
}

func TestStdinCarriesTheEvent(t *testing.T) {
	dir := t.TempDir()
	r := newRunner(t, dir, []Hook{{Event: PostToolUse, Command: "cat > got.json"}})
	ev := Event{Name: PostToolUse, SessionID: "s1", Cwd: dir, ToolName: "write_file", ToolUseID: "c1",
		ToolInput: json.RawMessage(`{"path":"a.txt"}`), ToolResponse: &ToolResponse{Output: "wrote", IsError: false}}
	if out := r.Run(context.Background(), ev); out.Ran != 1 || len(out.Failures) > 0 {
		t.Fatalf("outcome %+v", out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "got.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("stdin was not JSON: %s", b)
	}
	want := map[string]any{"hook_event_name": "PostToolUse", "session_id": "s1", "cwd": dir, "tool_name": "write_file",
		"tool_use_id": "c1", "tool_input": map[string]any{"path": "a.txt"},
		"tool_response": map[string]any{"output": "wrote", "is_error": false}}
	for k, v := range want {
		gb, _ := json.Marshal(got[k])
		wb, _ := json.Marshal(v)
		if string(gb) != string(wb) {
			t.Errorf("%s = %s, want %s", k, gb, wb)
		}
	}
}

func TestMatcher(t *testing.T) {
	dir := t.TempDir()
	r := newRunner(t, dir, []Hook{
		{Event: PreToolUse, Matcher: "bash(git push:*)", Command: "exit 2"},
		{Event: PreToolUse, Matcher: "edit_file(src/**)", Command: "exit 2"},
		{Event: PreToolUse, Matcher: "mcp__gh__*", Command: "exit 2"},
	})
	for _, tc := range []struct {
		call    permission.Call
		blocked bool
	}{
		{permission.Call{Tool: "bash", Command: "git status"}, false},
		{permission.Call{Tool: "bash", Command: "git add . && git push origin main"}, true},
		{permission.Call{Tool: "edit_file", Path: "src/a/b.go"}, true},
		{permission.Call{Tool: "edit_file", Path: "docs/a.md"}, false},
		{permission.Call{Tool: "write_file", Path: "src/a.go"}, false},
		{permission.Call{Tool: "mcp__gh__create_issue"}, true},
	} {
		out := r.Run(context.Background(), Event{Name: PreToolUse, ToolName: tc.call.Tool, Call: tc.call})
		if out.Blocked != tc.blocked {
			t.Errorf("%+v: blocked = %v, want %v", tc.call, out.Blocked, tc.blocked)
		}
	}
	// Other events do not run tool hooks.
	if out := r.Run(context.Background(), Event{Name: Stop}); out.Ran != 0 {
		t.Errorf("a stop event ran %d pre_tool_use hooks", out.Ran)
	}
}

func TestBadHooksAreRefused(t *testing.T) {
	for _, h := range []Hook{
		{Event: "before_everything", Command: "true"},
		{Event: Stop, Command: ""},
		{Event: Stop, Matcher: "bash", Command: "true"},
		{Event: PreToolUse, Matcher: "bash(", Command: "true"},
	} {
		if _, err := New(t.TempDir(), []Hook{h}); err == nil {
			t.Errorf("%+v was accepted", h)
		}
	}
}

func TestTimeoutKillsTheGroup(t *testing.T) {
	dir := t.TempDir()
	// The background child would write the marker after the timeout if it
	// survived the hook.
	r := newRunner(t, dir, []Hook{{Event: Stop, Command: "(sleep 2; touch survived) & sleep 30", Timeout: 300 * time.Millisecond}})
	out := r.Run(context.Background(), Event{Name: Stop})
	if len(out.Failures) != 1 || !strings.Contains(out.Failures[0].Message, "timed out") {
		t.Fatalf("outcome %+v, want a timeout failure", out)
	}
	time.Sleep(2500 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(dir, "survived")); err == nil {
		t.Fatal("a process the hook started survived its timeout")
	}
}

func TestSecretsDoNotReachHooks(t *testing.T) {
	dir := t.TempDir()
	r := newRunner(t, dir, []Hook{{Event: Stop, Command: "env > env.txt"}},
		WithEnv([]string{"PATH=" + os.Getenv("PATH"), "OPENAI_API_KEY=sk-secret", "MY_PROVIDER=hidden-too", "PLAIN=ok", "GH_TOKEN=kept"}),
		WithHiddenEnv("MY_PROVIDER", "OPENAI_API_KEY"), WithKeepEnv("GH_TOKEN", "OPENAI_API_KEY"))
	r.Run(context.Background(), Event{Name: Stop})
	b, err := os.ReadFile(filepath.Join(dir, "env.txt"))
	if err != nil {
		t.Fatal(err)
	}
	env := string(b)
	if strings.Contains(env, "sk-secret") || strings.Contains(env, "hidden-too") || !strings.Contains(env, "PLAIN=ok") || !strings.Contains(env, "GH_TOKEN=kept") {
		t.Fatalf("hook environment:\n%s", env)
	}
	if !strings.Contains(env, "HARNESS9_PROJECT_DIR="+dir) {
		t.Fatalf("HARNESS9_PROJECT_DIR missing:\n%s", env)
	}
}

func TestNoSandboxNoHookUnlessAllowed(t *testing.T) {
	dir := t.TempDir()
	r, err := New(dir, []Hook{{Event: Stop, Command: "touch ran"}})
	if err != nil {
		t.Fatal(err)
	}
	out := r.Run(context.Background(), Event{Name: Stop})
	if out.Ran != 0 || len(out.Failures) != 1 || !strings.Contains(out.Failures[0].Message, "unconfined = true") {
		t.Fatalf("outcome %+v, want a failure naming the setting", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("a hook ran without the sandbox")
	}
}

// TestSandboxConfinesHooks attacks from a hook: writing outside the
// workdir, and anything at all under the read-only policy of Plan Mode.
func TestSandboxConfinesHooks(t *testing.T) {
	if s := sandbox.Probe(); !s.Available {
		t.Skip("no kernel sandbox here: " + s.Reason)
	}
	dir, outside := t.TempDir(), t.TempDir()
	sb, err := sandbox.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(outside, "escaped")
	r, err := New(dir, []Hook{{Event: Stop, Command: "touch inside; touch " + target}}, WithSandbox(sb))
	if err != nil {
		t.Fatal(err)
	}
	r.Run(context.Background(), Event{Name: Stop})
	if _, err := os.Stat(target); err == nil {
		t.Fatal("a hook wrote outside the workdir")
	}
	if _, err := os.Stat(filepath.Join(dir, "inside")); err != nil {
		t.Fatal("a workspace-write hook could not write the workdir")
	}
	ctx := sandbox.ContextWithPolicy(context.Background(), sandbox.ReadOnly)
	r2, _ := New(dir, []Hook{{Event: Stop, Command: "touch planned"}}, WithSandbox(sb))
	r2.Run(ctx, Event{Name: Stop})
	if _, err := os.Stat(filepath.Join(dir, "planned")); err == nil {
		t.Fatal("a hook wrote the workdir under the read-only policy")
	}
}
