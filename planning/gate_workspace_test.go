package planning

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/tool"
)

// TestNewGateWithWorkspace checks the planning gate's use of the bash
// gate's workspace check; shellgate's own tests cover what it refuses.
func TestNewGateWithWorkspace(t *testing.T) {
	// The workspace is the home directory, whose ~/.ssh stays off limits.
	home := t.TempDir()
	root := home
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	ws, err := tool.NewWorkspace(root, tool.WithHome(home))
	if err != nil {
		t.Fatal(err)
	}
	g := NewGate(ModePlan, WithWorkspace(ws), WithReadOnlyTools("mcp_search"), WithShellTools("bash"))
	if !g.Visible("mcp_search") || g.Visible("write_file") {
		t.Error("WithReadOnlyTools was not applied")
	}
	if err := g.Check("bash", bashInput("grep -rn foo . | head")); err != nil {
		t.Errorf("a read inside the workspace was refused: %v", err)
	}
	err = g.Check("bash", bashInput("cat .ssh/id_rsa"))
	for _, f := range []string{"only read inside the workspace", "holds credentials", ws.Root(), "read_file"} {
		if err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("refusal %v should mention %q", err, f)
		}
	}
	err = g.Check("bash", bashInput("echo x > f"))
	if err == nil || !strings.Contains(err.Error(), "read-only bash") {
		t.Errorf("a writing command: %v", err)
	}
	// Other modes do not gate bash, workspace or not.
	if err := NewGate(ModeDefault, WithWorkspace(ws)).Check("bash", bashInput("cat /etc/passwd")); err != nil {
		t.Errorf("Default mode: %v", err)
	}
	// GateFor keeps its old meaning: no workspace check.
	if err := NewGate(ModePlan, WithShellTools("bash")).Check("bash", bashInput("cat /etc/passwd")); err != nil {
		t.Errorf("GateFor without a workspace: %v", err)
	}
}
