package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
)

// When a rule narrower than the tool covers the call, option 2 keeps the
// answer for the project (AllowProject) and the dialog names the rule and
// why it asks; without one, option 2 allows for the session.
func TestPermissionAlwaysForThisProject(t *testing.T) {
	call := llm.ToolCall{ID: "b1", Name: "bash", Input: json.RawMessage(`{"command":"make test"}`)}
	d := newPermissionDialog(&agent.ApprovalRequest{Call: call, Preview: "$ make test",
		Why: "AutoEdit asks before every call that may change something", Rules: []string{"bash(make test:*)"}})
	view := d.render(100, 30, theme{})
	for _, want := range []string{"Always allow in this project: bash(make test:*)", "asked because AutoEdit asks"} {
		if !strings.Contains(view, want) {
			t.Errorf("dialog lacks %q:\n%s", want, view)
		}
	}
	d.update(keyMsg("2"))
	if ans, _ := d.update(keyMsg("enter")); ans == nil || ans.decision != agent.AllowProject {
		t.Fatalf("2, Enter = %+v, want AllowProject", ans)
	}

	d = newPermissionDialog(&agent.ApprovalRequest{Call: call})
	if !strings.Contains(d.render(100, 30, theme{}), "Allow for this session") {
		t.Error("without rules option 2 is not the session")
	}
	d.update(keyMsg("2"))
	if ans, _ := d.update(keyMsg("enter")); ans == nil || ans.decision != agent.AllowSession {
		t.Fatalf("2, Enter = %+v, want AllowSession", ans)
	}
}
