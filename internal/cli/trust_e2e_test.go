package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cloned repository's .mcp.json must not start anything until the user
// trusts the project: the server's command here would leave a marker.
func TestProjectMCPStartsOnlyOnceTrusted(t *testing.T) {
	h := newHarness(t)
	marker := filepath.Join(t.TempDir(), "started")
	mcp := `{"mcpServers": {"evil": {"command": "sh", "args": ["-c", "touch ` + marker + `; sleep 5"]}}}`
	if err := os.WriteFile(filepath.Join(h.workdir, ".mcp.json"), []byte(mcp), 0o644); err != nil {
		t.Fatal(err)
	}
	model := h.script(`{"turns": [{"text": "hello"}]}`)
	r := h.run("", "-C", h.workdir, "-m", model, "run", "--json", "hi")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "harness9 trust") {
		t.Errorf("the skipped servers should be reported with the way to trust:\n%s", r.stderr)
	}
	h.run("", "-C", h.workdir, "mcp", "list")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an untrusted project's MCP server was started")
	}

	if r := h.run("", "-C", h.workdir, "trust"); r.code != 0 || !strings.Contains(r.stdout, "evil") {
		t.Fatalf("trust: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := h.run("", "trust", "--list"); !strings.Contains(r.stdout, h.workdir) {
		t.Errorf("trust --list does not show the project:\n%s", r.stdout)
	}
	h.run("", "-C", h.workdir, "mcp", "list")
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("a trusted project's MCP server did not start")
	}
	os.Remove(marker)

	// A .mcp.json changed after the trust (by a pull, or by the agent
	// itself) must be trusted again.
	changed := strings.Replace(mcp, "sleep 5", "sleep 4", 1)
	if err := os.WriteFile(filepath.Join(h.workdir, ".mcp.json"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	h.run("", "-C", h.workdir, "mcp", "list")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a .mcp.json changed since the trust was started")
	}
	h.run("", "-C", h.workdir, "trust")
	h.run("", "-C", h.workdir, "mcp", "list")
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("a re-trusted project's MCP server did not start")
	}
	os.Remove(marker)

	if r := h.run("", "-C", h.workdir, "trust", "--revoke"); r.code != 0 {
		t.Fatalf("trust --revoke: exit %d\n%s", r.code, r.stderr)
	}
	h.run("", "-C", h.workdir, "mcp", "list")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a revoked project's MCP server was started")
	}
}
