package cli_test

import (
	"strings"
	"testing"
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
	r.waitText("/mcp__everything__args-prompt ")
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
