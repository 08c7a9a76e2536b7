package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

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

// On a narrow terminal a permission question wraps long lines of its diff
// and of a command instead of cutting them: what is approved is seen whole.
func TestPermissionWrapsLongLines(t *testing.T) {
	long := "+\tresult := computeTheValueOfSomethingWithAVeryLongName(firstArgument, secondArgument, END_OF_LINE)"
	diff := "--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-old\n" + long + "\n"
	cmd := "$ rm -rf build && go build -o bin/app ./cmd/app && ./bin/app --config=/etc/app/config.toml --verbose END_OF_COMMAND"
	for _, preview := range []string{diff, cmd} {
		for _, w := range []int{60, 80} {
			d := newPermissionDialog(&agent.ApprovalRequest{Call: llm.ToolCall{ID: "e", Name: "edit_file", Input: json.RawMessage(`{"path":"x.go"}`)}, Preview: preview})
			view := normalise(d.render(w, 30, theme{}))
			for _, l := range strings.Split(view, "\n") {
				if ansi.StringWidth(l) > w {
					t.Errorf("%d columns: a line is %d wide: %q", w, ansi.StringWidth(l), l)
				}
			}
			flat := strings.NewReplacer("\n", "", "│", "", " ", "", "↳", "").Replace(view)
			for _, must := range []string{"END_OF_LINE)", "END_OF_COMMAND"} {
				if strings.Contains(preview, must) && !strings.Contains(flat, strings.ReplaceAll(must, " ", "")) {
					t.Errorf("%d columns: %q was cut:\n%s", w, must, view)
				}
			}
		}
	}
}
