package planning

import (
	"strings"
	"testing"
)

func TestPrompts(t *testing.T) {
	p := PlanPrompt("add a login page")
	if !strings.HasPrefix(p, PlanModePrefix) || !strings.HasSuffix(p, "add a login page") {
		t.Fatalf("PlanPrompt = %q", p)
	}
	for name, tc := range map[string]struct {
		text string
		want []string
	}{
		"plan prefix":   {PlanModePrefix, []string{"submit_plan", "title", "steps", "stop", "read-only"}},
		"exec":          {ExecPrompt, []string{"in_progress", "completed", "does not count"}},
		"exec continue": {ExecContinuePrompt, []string{"in_progress", "completed"}},
		"system":        {TodoSystemPrompt, []string{"todo_write", "in_progress", "refused"}},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.text, w) {
				t.Errorf("%s prompt should mention %q", name, w)
			}
		}
		// Prompts describe behaviour; permissions live in the gate (seed 000).
		for _, bad := range []string{"permission", "not allowed to", "you cannot"} {
			if strings.Contains(strings.ToLower(tc.text), bad) {
				t.Errorf("%s prompt talks about permissions (%q)", name, bad)
			}
		}
	}
}
