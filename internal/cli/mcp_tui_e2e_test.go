package cli_test

import (
	"strings"
	"testing"
	"time"
)

// In the TUI a server's prompt is in the / menu and Tab completes it; the
// prompt the server makes of the arguments is what the model gets. Tab
// after "@everything:" completes from the server's resources, and the
// resource sent is attached, fenced, as in run.
func TestMCPPromptAndResourceInTUIE2E(t *testing.T) {
	h, in, _ := everythingHarness(t)
	model := h.script(`{"turns": [
	  {"text": "Sunny in Texas.", "match": {"last_user_contains": "What's weather in Paris, Texas?"}},
	  {"text": "Read the architecture.", "match": {"last_user_contains": "# Everything Server – Architecture"}}
	]}`)
	r := h.openTUI(120, 40, "-m", model)
	r.text("/mcp__everything__args")
	r.waitText("(MCP server everything)")
	r.keys("Tab")
	// The input line holds the completed command (the space Tab adds after
	// it is not on the captured screen: tmux drops trailing blanks; a
	// missing one would show in the prompt the model gets, below).
	r.waitText("│ /mcp__everything__args-prompt")
	r.send("Paris state=Texas")
	r.waitText("Sunny in Texas.")
	if !strings.Contains(readFile(t, in), `"method":"prompts/get"`) {
		t.Error("the server was not asked for the prompt")
	}
	r.text("read @everything:demo://resource/static/document/archi")
	r.keys("Tab")
	r.waitText("@everything:demo://resource/static/document/architecture.md")
	r.keys("Enter")
	r.waitText("Read the architecture.")
	r.waitAll("attached everything:demo://resource/static/document/architecture.md")
}

// A server's request for input is a form in the TUI: guarded against keys
// typed ahead, filled with the server's defaults, and what the person
// types is what the server gets and the model reads in the tool's result.
func TestMCPElicitationAnsweredInTUIE2E(t *testing.T) {
	h, in, _ := everythingHarness(t)
	model := h.script(`{"turns": [
	  {"calls": [{"name": "mcp__everything__trigger-elicitation-request", "input": {}}], "match": {"has_tool": "mcp__everything__trigger-elicitation-request"}},
	  {"text": "Thanks, Ada.", "match": {"last_tool_result_contains": "- Name: Ada Lovelace"}}
	]}`)
	r := h.openTUI(120, 45, "-m", model, "--allow", "mcp__everything__trigger-elicitation-request")
	r.send("ask me")
	r.waitText("MCP server everything asks for input")
	r.waitText("Your full, legal name")
	time.Sleep(700 * time.Millisecond) // the guard: keys typed before it passes answer nothing
	r.text("Ada Lovelace")
	r.keys("Enter")
	r.waitText("Thanks, Ada.")
	sent := readFile(t, in)
	for _, want := range []string{`"action":"accept"`, `"name":"Ada Lovelace"`, `"integer":42`, `"titledSingleSelectEnum":"hero-1"`} {
		if !strings.Contains(sent, want) {
			t.Errorf("the server was not sent %s", want)
		}
	}
}
