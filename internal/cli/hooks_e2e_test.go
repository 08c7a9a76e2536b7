package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/sandbox"
)

// needSandbox skips tests whose hooks must run confined on a machine
// without Landlock.
func needSandbox(t *testing.T) {
	t.Helper()
	if s := sandbox.Probe(); !s.Available {
		t.Skip("no kernel sandbox here: " + s.Reason)
	}
}

// A pre_tool_use hook that exits 2 blocks a write_file: the file never
// reaches the disk, the model's next request holds the hook's stderr (the
// script's match fails the run otherwise), and the model works around it.
func TestPreToolUseHookBlocksE2E(t *testing.T) {
	needSandbox(t)
	h := newHarness(t)
	writeFile(t, filepath.Join(h.home, "config.toml"), `
[[hooks.pre_tool_use]]
matcher = "write_file(**/*.env)"
command = "echo 'secrets do not go in .env files; use config.example' >&2; exit 2"
`)
	script := `{"turns": [
  {"calls": [{"name": "write_file", "input": {"path": "app.env", "content": "KEY=1"}}]},
  {"match": {"last_tool_result_contains": "secrets do not go in .env files"},
   "calls": [{"name": "write_file", "input": {"path": "config.example", "content": "KEY="}}]},
  {"text": "wrote config.example instead"}
]}`
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", h.script(script), "configure the app")
	noCrash(t, "run", r)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if exists(filepath.Join(h.workdir, "app.env")) {
		t.Fatal("the blocked write reached the disk")
	}
	if !exists(filepath.Join(h.workdir, "config.example")) {
		t.Fatal("the model's workaround did not run")
	}
	res := r.find("tool_result")
	if len(res) != 2 || res[0]["is_error"] != true {
		t.Fatalf("tool results %v", res)
	}
	hooks := r.find("hook")
	if len(hooks) != 1 || hooks[0]["blocked"] != true || hooks[0]["event"] != "pre_tool_use" {
		t.Fatalf("hook events %v", hooks)
	}
}

// A post_tool_use hook reads the finished call as JSON on stdin.
func TestPostToolUseHookGetsTheResultE2E(t *testing.T) {
	needSandbox(t)
	h := newHarness(t)
	writeFile(t, filepath.Join(h.home, "config.toml"), `
[[hooks.post_tool_use]]
matcher = "write_file"
command = "cat > post.json"
timeout = "10s"
`)
	script := `{"turns": [
  {"calls": [{"id": "c1", "name": "write_file", "input": {"path": "a.txt", "content": "hello"}}]},
  {"text": "done"}
]}`
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", h.script(script), "write a.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(h.workdir, "post.json"))
	if err != nil {
		t.Fatalf("the hook wrote nothing: %v\n%s", err, r.stderr)
	}
	var ev struct {
		Event     string `json:"hook_event_name"`
		SessionID string `json:"session_id"`
		Cwd       string `json:"cwd"`
		Mode      string `json:"permission_mode"`
		ToolName  string `json:"tool_name"`
		ToolUseID string `json:"tool_use_id"`
		ToolInput struct {
			Path string `json:"path"`
		} `json:"tool_input"`
		ToolResponse *struct {
			Output  string `json:"output"`
			IsError bool   `json:"is_error"`
		} `json:"tool_response"`
	}
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatalf("stdin was not JSON: %s", b)
	}
	session := r.find("session")[0]["session_id"]
	if ev.Event != "PostToolUse" || ev.SessionID != session || ev.Cwd != h.workdir || ev.Mode != "default" ||
		ev.ToolName != "write_file" || ev.ToolUseID != "c1" || ev.ToolInput.Path != "a.txt" ||
		ev.ToolResponse == nil || ev.ToolResponse.IsError || ev.ToolResponse.Output == "" {
		t.Fatalf("the hook read %s", b)
	}
}

// A cloned repository's hooks do not run until the user trusts the
// project; then they do, until .harness9/config.toml changes.
func TestUntrustedProjectHooksDoNotRunE2E(t *testing.T) {
	needSandbox(t)
	h := newHarness(t)
	writeFile(t, filepath.Join(h.workdir, ".harness9", "config.toml"), `
[[hooks.session_start]]
command = "touch marker"

[[hooks.pre_tool_use]]
command = "touch pre-marker"
`)
	script := h.script(`{"turns": [{"calls": [{"name": "read_file", "input": {"path": ".harness9/config.toml"}}]}, {"text": "hi"}]}`)
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", script, "hello")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if exists(filepath.Join(h.workdir, "marker")) || exists(filepath.Join(h.workdir, "pre-marker")) {
		t.Fatal("an untrusted project's hook ran")
	}
	if !strings.Contains(r.stderr, "harness9 trust") {
		t.Errorf("the skipped hooks should be reported with the way to trust them:\n%s", r.stderr)
	}
	if d := h.run("", "-C", h.workdir, "doctor", "--offline"); !strings.Contains(d.stdout, "not run") {
		t.Errorf("doctor does not say the project's hooks are not run:\n%s", d.stdout)
	}

	if r := h.run("", "-C", h.workdir, "trust"); r.code != 0 || !strings.Contains(r.stdout, "hook session_start: touch marker") {
		t.Fatalf("trust: exit %d, it should list the hooks it lets run\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = h.run("", "run", "--json", "-C", h.workdir, "-m", script, "hello")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !exists(filepath.Join(h.workdir, "marker")) || !exists(filepath.Join(h.workdir, "pre-marker")) {
		t.Fatalf("a trusted project's hooks did not run\n%s", r.stderr)
	}
	os.Remove(filepath.Join(h.workdir, "marker"))
	writeFile(t, filepath.Join(h.workdir, ".harness9", "config.toml"), "[[hooks.session_start]]\ncommand = \"touch marker\"\n")
	h.run("", "run", "--json", "-C", h.workdir, "-m", script, "hello")
	if exists(filepath.Join(h.workdir, "marker")) {
		t.Fatal("a project hook changed since the trust ran")
	}
}

// A hook is confined like a command of the model: it cannot write outside
// the workdir, nor anything while planning; what it failed to do is
// reported as a hook failure.
func TestHooksAreSandboxedE2E(t *testing.T) {
	needSandbox(t)
	h := newHarness(t)
	outside := t.TempDir()
	writeFile(t, filepath.Join(h.home, "config.toml"), `
[[hooks.session_start]]
command = "touch inside; touch `+filepath.Join(outside, "escaped")+`"
`)
	script := h.script(`{"turns": [{"text": "hi"}]}`)
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", script, "hello")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if exists(filepath.Join(outside, "escaped")) {
		t.Fatal("a hook wrote outside the workdir")
	}
	if !exists(filepath.Join(h.workdir, "inside")) {
		t.Fatal("a hook could not write the workdir in Default mode")
	}
	hooks := r.find("hook")
	if len(hooks) != 1 || hooks[0]["blocked"] != false || !strings.Contains(hooks[0]["message"].(string), "exit status 1") {
		t.Fatalf("hook events %v", hooks)
	}
	os.Remove(filepath.Join(h.workdir, "inside"))

	r = h.run("", "run", "--json", "--plan", "-C", h.workdir, "-m", script, "hello")
	if exists(filepath.Join(h.workdir, "inside")) {
		t.Fatalf("a hook wrote the workdir in Plan Mode\n%s", r.stderr)
	}
}
