package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func noCrash(t *testing.T, what string, r result) {
	t.Helper()
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic:") {
		t.Fatalf("%s crashed:\n%s", what, r.stderr)
	}
}

// skillsWorkdir holds a good project skill (with an extra file), one whose
// frontmatter is not closed and one that is not YAML; the user's home holds
// another good skill.
func skillsWorkdir(t *testing.T, h *harness) {
	t.Helper()
	skills := filepath.Join(h.workdir, ".harness9", "skills")
	writeFile(t, filepath.Join(skills, "go-style", "SKILL.md"),
		"---\nname: go-style\ndescription: How we write Go in this project.\n---\n# Go style\nWrap errors with %w and name the operation.\n")
	writeFile(t, filepath.Join(skills, "go-style", "checklist.md"), "- gofmt\n")
	writeFile(t, filepath.Join(skills, "broken", "SKILL.md"), "---\nname: broken\ndescription: never closed\n# no closing line\n")
	writeFile(t, filepath.Join(skills, "notyaml", "SKILL.md"), "---\nname: [unclosed\ndescription: x\n---\nbody\n")
	writeFile(t, filepath.Join(h.home, "skills", "release", "SKILL.md"),
		"---\nname: release\ndescription: Cut a release.\n---\nTag it.\n")
}

func TestSkillsListE2E(t *testing.T) {
	h := newHarness(t)
	skillsWorkdir(t, h)
	r := h.run("", "skills", "list", "-C", h.workdir)
	noCrash(t, "skills list", r)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"go-style", "How we write Go in this project.", "release", "Cut a release."} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "broken") || strings.Contains(r.stdout, "notyaml") {
		t.Errorf("a bad skill is listed:\n%s", r.stdout)
	}
	for _, bad := range []string{filepath.Join("broken", "SKILL.md"), filepath.Join("notyaml", "SKILL.md")} {
		if !strings.Contains(r.stderr, "warning: ") || !strings.Contains(r.stderr, bad) {
			t.Errorf("no warning naming %s:\n%s", bad, r.stderr)
		}
	}

	empty := newHarness(t)
	r = empty.run("", "skills", "list", "-C", empty.workdir)
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "no skills") {
		t.Errorf("no skills: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// The skills index is in the system prompt; use_skill returns the body and
// lists the folder's other files; bad skills are warned about, not fatal.
func TestSkillInSystemPromptAndUseSkillE2E(t *testing.T) {
	h := newHarness(t)
	skillsWorkdir(t, h)
	model := h.script(`{"turns": [
	  {"calls": [{"name": "use_skill", "input": {"name": "go-style"}}],
	   "match": {"system_contains": "- go-style: How we write Go in this project.", "has_tool": "use_skill"}},
	  {"calls": [{"name": "use_skill", "input": {"name": "go-style", "file": "checklist.md"}}],
	   "match": {"last_tool_result_contains": "Wrap errors with %w and name the operation."}},
	  {"text": "Following the style.", "match": {"last_tool_result_contains": "- gofmt"}}
	]}`)
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", model, "fix the errors")
	noCrash(t, "run", r)
	if r.code != 0 || r.last()["status"] != "completed" {
		t.Fatalf("exit %d, last %v\nstderr: %s\nstdout: %s", r.code, r.last(), r.stderr, r.stdout)
	}
	res := r.find("tool_result")
	if len(res) != 2 || res[0]["is_error"] != false {
		t.Fatalf("tool results = %v", res)
	}
	out := res[0]["output"].(string)
	if !strings.Contains(out, "# Go style") || !strings.Contains(out, "checklist.md") || strings.Contains(out, "name: go-style") {
		t.Errorf("use_skill output (body without frontmatter, other files listed):\n%s", out)
	}
	if !strings.Contains(r.stderr, "broken") {
		t.Errorf("the run does not warn about the bad skill:\n%s", r.stderr)
	}
}

// A server that cannot start is reported and skipped; the agent still runs.
func TestMCPDeadServerE2E(t *testing.T) {
	h := newHarness(t)
	writeFile(t, filepath.Join(h.workdir, ".mcp.json"), `{"mcpServers": {"ghost": {"command": "does-not-exist", "args": ["--stdio"]}}}`)
	if r := h.run("", "trust", "-C", h.workdir); r.code != 0 {
		t.Fatalf("trust: exit %d\n%s", r.code, r.stderr)
	}
	r := h.run("", "mcp", "list", "-C", h.workdir)
	noCrash(t, "mcp list", r)
	if r.code != 0 || !strings.Contains(r.stdout, "ghost (stdio) failed: ") {
		t.Fatalf("mcp list: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	model := h.script(`{"turns": [{"text": "Still here.", "match": {"no_tool": "mcp__ghost__anything"}}]}`)
	r = h.run("", "run", "--json", "-C", h.workdir, "-m", model, "hello")
	noCrash(t, "run", r)
	if r.code != 0 || r.last()["status"] != "completed" {
		t.Fatalf("run: exit %d, last %v\nstderr: %s", r.code, r.last(), r.stderr)
	}
	if !strings.Contains(r.stderr, "did not start") || !strings.Contains(r.stderr, "ghost") {
		t.Errorf("the run does not report the dead server:\n%s", r.stderr)
	}
}

// everythingServer returns the reference MCP server's command, or skips.
func everythingServer(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping the external MCP reference server")
	}
	path, err := exec.LookPath("mcp-server-everything")
	if err != nil {
		t.Skip("mcp-server-everything is not on PATH: install it with `npm install -g @modelcontextprotocol/server-everything`")
	}
	return path
}

// The reference server nobody here wrote, configured in .mcp.json next to a
// dead one: `mcp list` shows both, and a scripted model calls its echo tool
// through `run`.
func TestMCPEverythingServerE2E(t *testing.T) {
	cmd := everythingServer(t)
	h := newHarness(t)
	writeFile(t, filepath.Join(h.workdir, ".mcp.json"), `{"mcpServers": {
	  "everything": {"command": "`+cmd+`", "args": ["stdio"]},
	  "ghost": {"command": "does-not-exist"}
	}}`)
	if r := h.run("", "trust", "-C", h.workdir); r.code != 0 {
		t.Fatalf("trust: exit %d\n%s", r.code, r.stderr)
	}
	r := h.run("", "mcp", "list", "-C", h.workdir)
	noCrash(t, "mcp list", r)
	if r.code != 0 {
		t.Fatalf("mcp list: exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"everything (stdio) connected", "    mcp__everything__echo\n", "ghost (stdio) failed: "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("mcp list lacks %q:\n%s", want, r.stdout)
		}
	}

	model := h.script(`{"turns": [
	  {"calls": [{"name": "mcp__everything__echo", "input": {"message": "hello from harness9"}}],
	   "match": {"has_tool": "mcp__everything__echo"}},
	  {"text": "The server echoed.", "match": {"last_tool_result_contains": "Echo: hello from harness9"}}
	]}`)
	r = h.run("", "run", "--json", "-C", h.workdir, "-m", model, "echo something")
	noCrash(t, "run", r)
	if r.code != 0 || r.last()["status"] != "completed" {
		t.Fatalf("run: exit %d, last %v\nstderr: %s\nstdout: %s", r.code, r.last(), r.stderr, r.stdout)
	}
	res := r.find("tool_result")
	if len(res) != 1 || res[0]["name"] != "mcp__everything__echo" || res[0]["is_error"] != false ||
		res[0]["output"] != "Echo: hello from harness9" {
		t.Fatalf("tool_result = %v", res)
	}
}
