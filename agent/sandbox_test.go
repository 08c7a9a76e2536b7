package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
)

func bashCall(cmd string) scripted.Turn {
	return scripted.Turn{Calls: scripted.Calls(scripted.Call("bash", map[string]any{"command": cmd}))}
}

// In Plan Mode bash may run read-only commands, but only on paths inside the
// workspace: a private key in the (fake) home directory never reaches the
// model or the stored history.
func TestPlanModeBashCannotReadOutsideTheWorkspace(t *testing.T) {
	const secret = "-----BEGIN OPENSSH PRIVATE KEY----- s3cr3t"
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	h := newHarness(t,
		bashCall("cat ~/.ssh/id_rsa"),
		bashCall("cat "+filepath.Join(home, ".ssh", "id_rsa")),
		bashCall("cat README.md"),
		scripted.Turn{Text: "I can only read the project."},
	)
	if err := os.WriteFile(filepath.Join(h.dir, "README.md"), []byte("project readme"), 0o644); err != nil {
		t.Fatal(err)
	}
	eng := h.engine(agent.WithMode(planning.ModePlan))
	evs := drain(t, eng.Run(context.Background(), "look around"))
	wantDone(t, evs, agent.StatusCompleted)

	res := resultsOf(evs)
	if len(res) != 3 {
		t.Fatalf("%d tool results, want 3:\n%s", len(res), dump(evs))
	}
	for _, r := range res[:2] {
		if !r.IsError || !strings.Contains(r.Output, "only read inside the workspace") {
			t.Errorf("reading the key: error=%v %q", r.IsError, r.Output)
		}
	}
	if res[2].IsError || !strings.Contains(res[2].Output, "project readme") {
		t.Errorf("cat README.md inside the workspace: error=%v %q", res[2].IsError, res[2].Output)
	}
	for _, m := range h.messages(eng.SessionID()) {
		if strings.Contains(m.Content, "s3cr3t") {
			t.Fatalf("the private key reached the history: %q", m.Content)
		}
	}
}

// WithWorkspace replaces the engine's default sandbox (its workdir).
func TestWithWorkspaceNarrowsPlanModeBash(t *testing.T) {
	h := newHarness(t)
	readme := filepath.Join(h.dir, "README.md")
	if err := os.WriteFile(readme, []byte("project readme"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(h.dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := tool.NewWorkspace(sub)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts    []agent.Option
		refused bool
	}{
		{[]agent.Option{agent.WithMode(planning.ModePlan)}, false},
		{[]agent.Option{agent.WithMode(planning.ModePlan), agent.WithWorkspace(ws)}, true},
	} {
		h.p = scripted.New(bashCall("cat "+readme), scripted.Turn{Text: "ok"})
		evs := drain(t, h.engine(tc.opts...).Run(context.Background(), "read"))
		res := resultsOf(evs)
		if len(res) != 1 || res[0].IsError != tc.refused {
			t.Errorf("WithWorkspace set: %v; results:\n%s", tc.refused, dump(evs))
		}
	}
}
