package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/harness9/harness9/planning"
)

// busyBar is a status bar with every item: a running auto-execution in
// AutoEdit with Plan Mode chosen for the next turn, tokens and cost, tasks.
func busyBar(sandbox string, ok bool) statusBar {
	return statusBar{
		mode: planning.ModeAutoEdit, next: planning.ModePlan, showNext: true,
		model: "anthropic/claude-sonnet-4-5", ctxTokens: 61000, ctxWindow: 200000,
		sessionID: "0123456789abcdef", done: 3, total: 11, activity: "exec round 12",
		sandbox: sandbox, sandboxOK: ok, usage: "123.4k tok $0.420",
	}
}

// On a narrow terminal the bar gives up the least needed first (the
// session, then the model's provider and the cost); the tokens and the
// execution round stay at 60 and 80 columns, and the mode and the
// sandbox's state are never given up.
func TestGoldenStatusBarWidths(t *testing.T) {
	for _, w := range []int{60, 80, 200} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			var out []string
			for _, sb := range []struct {
				label string
				ok    bool
			}{{"sandboxed", true}, {"SANDBOX OFF", false}} {
				bar := normalise(busyBar(sb.label, sb.ok).view(w))
				if n := ansi.StringWidth(bar); n > w {
					t.Errorf("%d columns wide at %d", n, w)
				}
				for _, must := range []string{"AUTO-EDIT", sb.label, "123.4k tok", "round 12"} {
					if !strings.Contains(bar, must) {
						t.Errorf("at %d columns the bar lacks %q: %q", w, must, bar)
					}
				}
				out = append(out, bar)
			}
			idle := normalise(statusBar{mode: planning.ModePlan, model: "openai/gpt-4.1", ctxWindow: 128000, sessionID: "0123456789abcdef", sandbox: "sandboxed", sandboxOK: true}.view(w))
			out = append(out, idle)
			golden(t, fmt.Sprintf("statusbar_%d", w), strings.Join(out, "\n")+"\n")
		})
	}
	// Even at 30 columns the mode and the sandbox's state are there.
	bar := normalise(busyBar("SANDBOX OFF", false).view(30))
	if !strings.Contains(bar, "AUTO-EDIT") || !strings.Contains(bar, "SANDBOX OFF") {
		t.Errorf("at 30 columns: %q", bar)
	}
}
