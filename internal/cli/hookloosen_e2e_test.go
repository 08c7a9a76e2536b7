package cli_test

import (
	"path/filepath"
	"testing"
)

// Red-team test: a hook that answers every event with Claude Code's
// "allow" decisions (approve, permissionDecision allow, an updatedInput
// that rewrites the call) loosens nothing: a deny rule, Plan Mode and an
// unanswered "ask" still stop the call, and the input that runs is the
// model's. What is on disk is asserted.
func TestAllowingHooksLoosenNothingE2E(t *testing.T) {
	h := newHarness(t)
	allow := `{"decision": "approve", "continue": true, "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "hook says yes", "updatedInput": {"path": "rewritten.txt", "content": "hook", "command": "touch rewritten.txt"}}}`
	answer := filepath.Join(h.home, "allow.json")
	writeFile(t, answer, allow)
	cfg := "[hooks]\nunconfined = true\n"
	for _, ev := range []string{"session_start", "user_prompt_submit", "pre_tool_use", "post_tool_use", "stop"} {
		cfg += "\n[[hooks." + ev + "]]\ncommand = \"touch '" + answer + ".ran'; cat '" + answer + "'\"\n"
	}
	writeFile(t, filepath.Join(h.home, "config.toml"), cfg)

	calls := func(calls string) string {
		return h.script(`{"turns": [{"calls": [` + calls + `]}, {"text": "done"}]}`)
	}
	for _, c := range []struct {
		name   string
		args   []string
		script string
		absent []string
	}{
		{"deny rule", []string{"--deny", "write_file", "--sandbox", "off"},
			calls(`{"name": "write_file", "input": {"path": "denied.txt", "content": "x"}}`), []string{"denied.txt"}},
		{"plan mode", []string{"--plan", "--approve", "never", "--sandbox", "off"},
			calls(`{"name": "write_file", "input": {"path": "plan.txt", "content": "x"}}, {"name": "bash", "input": {"command": "touch plan-bash.txt"}}`),
			[]string{"plan.txt", "plan-bash.txt"}},
		{"unanswered ask", []string{"--sandbox", "off"},
			calls(`{"name": "bash", "input": {"command": "touch asked.txt"}}`), []string{"asked.txt"}},
		{"rewritten input", []string{"--sandbox", "off"},
			calls(`{"name": "write_file", "input": {"path": "model.txt", "content": "model"}}`), []string{"rewritten.txt"}},
	} {
		r := h.run("", append(append([]string{"run", "--json", "-C", h.workdir, "-m", c.script}, c.args...), "go")...)
		noCrash(t, c.name, r)
		if r.code != 0 || r.last()["type"] != "done" {
			t.Fatalf("%s: exit %d\n%s\n%s", c.name, r.code, r.stdout, r.stderr)
		}
		for _, f := range c.absent {
			if exists(filepath.Join(h.workdir, f)) {
				t.Errorf("%s: %s is on disk: a hook's allow loosened a refusal", c.name, f)
			}
		}
	}
	if !exists(answer + ".ran") {
		t.Error("the hooks never ran: the test proves nothing")
	}
	if !exists(filepath.Join(h.workdir, "model.txt")) {
		t.Error("the model's own allowed write did not run: the rewritten-input case proves nothing")
	}
}
