package tui

import (
	"strings"
	"testing"
)

// The runtime's notices (a project's servers not started) are shown as
// notes, those said before the TUI started included.
func TestRuntimeNoticesAreShown(t *testing.T) {
	ch := make(chan string, 2)
	ch <- "not started: MCP server evil (you declined to trust this project)"
	opts := testOptions(newFake())
	opts.Notices = ch
	h := newHarness(t, opts, 100, 24)
	if s := h.screen(); !strings.Contains(s, "⚠ not started: MCP server evil") {
		t.Errorf("the notice is not shown:\n%s", s)
	}
}
