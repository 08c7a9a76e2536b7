package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// touchScript has the model run a command that writes a file, then end
// with whatever the tool said.
const touchScript = `{"turns": [
  {"calls": [{"name": "bash", "input": {"command": "touch made.txt"}}]},
  {"text": "done"}
]}`

// permissionRun runs touchScript headless (no terminal) in Default mode
// with the kernel sandbox off, so nothing contains bash and it needs
// permission.
func permissionRun(t *testing.T, h *harness, extra ...string) (result, map[string]any) {
	t.Helper()
	args := append([]string{"run", "--json", "--sandbox", "off", "-C", h.workdir, "-m", h.script(touchScript)}, extra...)
	r := h.run("", append(args, "make a file")...)
	noCrash(t, "run", r)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	res := r.find("tool_result")
	if len(res) != 1 {
		t.Fatalf("tool results %v", res)
	}
	return r, res[0]
}

func made(h *harness) bool {
	_, err := os.Stat(filepath.Join(h.workdir, "made.txt"))
	return err == nil
}

// Without a terminal a call that needs permission is refused, the model
// is told the --allow rule that would permit it, and the run goes on;
// with that rule the command runs.
func TestHeadlessRefusalNamesTheRuleE2E(t *testing.T) {
	h := newHarness(t)
	r, res := permissionRun(t, h)
	if made(h) {
		t.Fatal("the command ran without permission")
	}
	out, _ := res["output"].(string)
	if res["is_error"] != true || !strings.Contains(out, "--allow 'bash(touch:*)'") {
		t.Fatalf("the model saw %v", res)
	}
	var decisions []string
	for _, p := range r.find("permission") {
		decisions = append(decisions, p["decision"].(string))
	}
	if strings.Join(decisions, ",") != "asked,denied" {
		t.Errorf("permission events %v, want asked then denied", r.find("permission"))
	}
	if r.last()["status"] != "completed" {
		t.Errorf("the run did not go on: %v", r.last())
	}

	r, res = permissionRun(t, h, "--allow", "bash(touch:*)")
	if !made(h) || res["is_error"] != false {
		t.Fatalf("with --allow the command did not run: %v", res)
	}
	p := r.find("permission")
	if len(p) != 1 || p[0]["decision"] != "allowed" || p[0]["rule"] != "bash(touch:*)" {
		t.Errorf("permission events %v, want one allowed by bash(touch:*)", p)
	}
}

// A deny flag beats an allow flag for the same command.
func TestDenyBeatsAllowE2E(t *testing.T) {
	h := newHarness(t)
	_, res := permissionRun(t, h, "--allow", "bash", "--deny", "bash(touch:*)")
	if made(h) || res["is_error"] != true || !strings.Contains(res["output"].(string), "bash(touch:*)") {
		t.Fatalf("denied command: made=%v, result %v", made(h), res)
	}
}

// A project's own config cannot allow anything: its allow rule is
// reported and ignored, its deny rule holds.
func TestProjectConfigCannotAllowE2E(t *testing.T) {
	h := newHarness(t)
	writeFile(t, filepath.Join(h.workdir, ".harness9", "config.toml"), "[permissions]\nallow = [\"bash(touch:*)\"]\n")
	r, res := permissionRun(t, h)
	if made(h) || res["is_error"] != true {
		t.Fatalf("the project allowed itself a command: %v", res)
	}
	if !strings.Contains(r.stderr, "permissions.allow is ignored") || !strings.Contains(r.stderr, "bash(touch:*)") {
		t.Errorf("stderr does not report the ignored rule:\n%s", r.stderr)
	}

	writeFile(t, filepath.Join(h.workdir, ".harness9", "config.toml"), "[permissions]\ndeny = [\"bash(touch:*)\"]\n")
	_, res = permissionRun(t, h, "--allow", "bash(touch:*)")
	if made(h) || res["is_error"] != true {
		t.Fatalf("the project's deny rule did not hold against --allow: %v", res)
	}
}

// A malformed rule is a config error naming it and its file.
func TestMalformedRuleExits2E2E(t *testing.T) {
	h := newHarness(t)
	writeFile(t, filepath.Join(h.home, "config.toml"), "[permissions]\nallow = [\"bash(git diff:*\"]\n")
	r := h.run("", "run", "-C", h.workdir, "-m", h.script(touchScript), "x")
	if r.code != 2 || !strings.Contains(r.stderr, "config.toml") || !strings.Contains(r.stderr, "bash(git diff:*") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
}

// A write-capable MCP tool (no readOnlyHint) is asked about in Default
// mode: headless without a terminal it is refused and the model is told
// the rule; with --allow 'mcp__srv__put' it runs.
func TestMCPToolNeedsPermissionE2E(t *testing.T) {
	h := newHarness(t)
	// Inside the workdir: the server runs in the workspace-write sandbox.
	out := filepath.Join(h.workdir, "stored.txt")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(h.home, "config.toml"), "[mcp_servers.srv]\ncommand = \""+self+"\"\n"+
		"env = { "+envServeMCP+" = \"1\", "+envMCPOut+" = \""+out+"\" }\n")
	model := h.script(`{"turns": [
	  {"calls": [{"name": "mcp__srv__put", "input": {"text": "hello"}}], "match": {"has_tool": "mcp__srv__put"}},
	  {"text": "done"}
	]}`)
	call := func(extra ...string) map[string]any {
		t.Helper()
		r := h.run("", append(append([]string{"run", "--json", "-C", h.workdir, "-m", model}, extra...), "store hello")...)
		noCrash(t, "run", r)
		res := r.find("tool_result")
		if r.code != 0 || len(res) != 1 {
			t.Fatalf("exit %d, results %v\n%s", r.code, res, r.stderr)
		}
		return res[0]
	}
	res := call()
	if _, err := os.Stat(out); err == nil {
		t.Fatal("the MCP tool ran without permission")
	}
	if res["is_error"] != true || !strings.Contains(res["output"].(string), "--allow mcp__srv__put") {
		t.Fatalf("the model saw %v", res)
	}
	res = call("--allow", "mcp__srv__put")
	if b, err := os.ReadFile(out); err != nil || string(b) != "hello" || res["is_error"] != false {
		t.Fatalf("with --allow: file %q (%v), result %v", b, err, res)
	}
}
