package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// everythingHarness configures the MCP reference server behind a tee that
// logs what harness9 sends it (in) and what it answers (out), both in the
// workdir, which the confined server may write.
func everythingHarness(t *testing.T) (h *harness, in, out string) {
	t.Helper()
	bin := everythingBinary(t)
	h = newHarness(t)
	logs := filepath.Join(h.workdir, "wire")
	if err := os.Mkdir(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	in, out = filepath.Join(logs, "in.jsonl"), filepath.Join(logs, "out.jsonl")
	wrapper := filepath.Join(t.TempDir(), "everything.sh")
	writeFile(t, wrapper, fmt.Sprintf("#!/bin/sh\ntee -a %q | %q stdio | tee -a %q\n", in, bin, out))
	if err := os.Chmod(wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := h.run("", "mcp", "add", "-C", h.workdir, "everything", "--", wrapper); r.code != 0 {
		t.Fatalf("mcp add: exit %d\n%s", r.code, r.stderr)
	}
	return h, in, out
}

// A server's prompt is a slash command of `run`, its arguments given by
// position and by name; what the server makes of them is the prompt the
// model gets. Mistakes are usage errors.
func TestMCPPromptAsSlashCommandE2E(t *testing.T) {
	h, _, _ := everythingHarness(t)
	model := h.script(`{"turns": [{"text": "Sunny.", "match": {"last_user_contains": "What's weather in Paris, Texas?"}}]}`)
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", model, "/mcp__everything__args-prompt Paris state=Texas")
	noCrash(t, "run", r)
	if r.code != 0 || r.last()["status"] != "completed" {
		t.Fatalf("run: exit %d %v\n%s%s", r.code, r.last(), r.stderr, r.stdout)
	}
	r = h.run("", "run", "--json", "-C", h.workdir, "-m", model, `/mcp__everything__args-prompt "New York"`)
	if r.code == 0 {
		t.Error("a prompt the model script does not expect passed")
	}
	for _, bad := range []string{"/mcp__everything__args-prompt", "/mcp__everything__no-such-prompt x", "/mcp__everything__simple-prompt extra"} {
		r := h.run("", "run", "--json", "-C", h.workdir, "-m", model, bad)
		if r.code != 2 || !strings.Contains(r.stderr, "/mcp__everything__") {
			t.Errorf("%q: exit %d\n%s", bad, r.code, r.stderr)
		}
	}
	if r := h.run("", "mcp", "list", "-C", h.workdir); !strings.Contains(r.stdout, "/mcp__everything__args-prompt") {
		t.Errorf("mcp list does not show the prompts:\n%s", r.stdout)
	}
}

// @server:uri attaches a resource, and a template's resource, like a file:
// fenced, named, the text the server returned.
func TestMCPResourceMentionE2E(t *testing.T) {
	h, _, _ := everythingHarness(t)
	model := h.script(`{"turns": [{"text": "Read them.", "match": {"last_user_contains": "<resource server=\"everything\" uri=\"demo://resource/dynamic/text/3\">"}}]}`)
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", model,
		"summarise @everything:demo://resource/static/document/architecture.md and @everything:demo://resource/dynamic/text/3.")
	noCrash(t, "run", r)
	if r.code != 0 || r.last()["status"] != "completed" {
		t.Fatalf("run: exit %d %v\n%s%s", r.code, r.last(), r.stderr, r.stdout)
	}
	if !strings.Contains(r.stderr, "attached everything:demo://resource/static/document/architecture.md") {
		t.Errorf("the person is not told what was attached:\n%s", r.stderr)
	}
	sess := h.run("", "sessions", "show", "--json", "-C", h.workdir, r.events[0]["session_id"].(string))
	for _, want := range []string{"# Everything Server – Architecture", "Resource 3: This is a plaintext resource"} {
		if !strings.Contains(sess.stdout, want) {
			t.Errorf("the prompt the model got lacks %q", want)
		}
	}
	r = h.run("", "run", "--json", "-C", h.workdir, "-m", model, "read @everything:demo://resource/dynamic/text/0")
	if !strings.Contains(r.stderr, "not attached: everything:demo://resource/dynamic/text/0") {
		t.Errorf("a resource the server refuses is not reported:\n%s", r.stderr)
	}
}

// A server's request for input is declined when nobody can answer (run):
// the server says so in the result the model gets, and the person is
// told. The tool offering it exists only for clients that take
// elicitation, which the server registers after the handshake and
// announces with notifications/tools/list_changed: harness9 lists the
// tools again (the wire log shows both) and the model is offered it.
func TestMCPElicitationDeclinedHeadlessAndListChangedE2E(t *testing.T) {
	h, in, out := everythingHarness(t)
	model := h.script(`{"turns": [
	  {"calls": [{"name": "mcp__everything__trigger-elicitation-request", "input": {}}], "match": {"has_tool": "mcp__everything__trigger-elicitation-request"}},
	  {"text": "They said no.", "match": {"last_tool_result_contains": "User declined to provide the requested information"}}
	]}`)
	r := h.run("", "run", "--json", "--allow", "mcp__everything__trigger-elicitation-request", "-C", h.workdir, "-m", model, "ask me")
	noCrash(t, "run", r)
	if r.code != 0 || r.last()["status"] != "completed" {
		t.Fatalf("run: exit %d %v\n%s%s", r.code, r.last(), r.stderr, r.stdout)
	}
	if !strings.Contains(r.stderr, "MCP server everything asked for input") || !strings.Contains(r.stderr, "declined") {
		t.Errorf("the person is not told of the declined request:\n%s", r.stderr)
	}
	sent, got := readFile(t, in), readFile(t, out)
	if !strings.Contains(got, `"method":"notifications/tools/list_changed"`) {
		t.Fatalf("the server announced no tool list change; the test proves nothing:\n%s", got)
	}
	if n := strings.Count(sent, `"method":"tools/list"`); n < 2 {
		t.Errorf("harness9 listed the tools %d time(s) after the server's list_changed", n)
	}
	if !strings.Contains(sent, `"action":"decline"`) {
		t.Errorf("the server was not sent a decline:\n%s", sent)
	}
}
