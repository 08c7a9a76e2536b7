package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/sandbox"
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
	wantDone(t, evs, agent.RunCompleted)

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

// Plan Mode's promise holds in the kernel: whatever a bash call looks like
// to the parse gate, nothing is written and the run goes on.
func TestPlanModeBashWritesNothingWhateverTheGateSays(t *testing.T) {
	if sup := sandbox.Probe(); !sup.Available {
		t.Skipf("no kernel sandbox: %s", sup.Reason)
	}
	attacks := []string{
		"sed ':a e touch pwned1' README.md",
		"git grep -iO'touch pwned2' x",
		"uniq README.md -- -pwned3",
		"python3 -c 'open(\"pwned4\",\"w\")'",
		"cat README.md\r\ntouch pwned5",
		"echo $(touch pwned6)",
		"tail -f README.md > /dev/null &",
	}
	var turns []scripted.Turn
	for _, a := range attacks {
		turns = append(turns, bashCall(a))
	}
	h := newHarness(t, append(turns, scripted.Turn{Text: "done exploring"})...)
	if err := os.WriteFile(filepath.Join(h.dir, "README.md"), []byte("readme\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadDir(h.dir)
	eng := h.engine(agent.WithMode(planning.ModePlan))
	evs := drain(t, eng.Run(context.Background(), "explore"))
	if got := len(resultsOf(evs)); got != len(attacks) {
		t.Fatalf("%d results for %d calls:\n%s", got, len(attacks), dump(evs))
	}
	after, _ := os.ReadDir(h.dir)
	if len(after) != len(before) {
		var names []string
		for _, e := range after {
			names = append(names, e.Name())
		}
		t.Fatalf("Plan Mode bash changed the workdir: %v", names)
	}
}

// Without a kernel sandbox, Plan Mode offers no bash at all, and Default
// mode asks before every bash call.
func TestNoSandboxNoPlanBashAndDefaultAsks(t *testing.T) {
	h := newHarness(t, bashCall("echo hi > made"), scripted.Turn{Text: "ok"})
	h.sbOpts = []sandbox.Option{sandbox.WithSupport(sandbox.Support{Reason: "simulated"})}

	eng := h.engine(agent.WithMode(planning.ModePlan))
	evs := drain(t, eng.Run(context.Background(), "plan"))
	if _, err := os.Stat(filepath.Join(h.dir, "made")); err == nil {
		t.Fatal("an unconfined bash ran while planning")
	}
	res := resultsOf(evs)
	if len(res) != 1 || !res[0].IsError {
		t.Fatalf("bash while planning without a sandbox must be refused:\n%s", dump(evs))
	}
	for _, r := range h.p.Requests() {
		if slices.Contains(toolNames(r), "bash") {
			t.Fatal("bash was offered to the model while planning without a sandbox")
		}
	}

	h.p = scripted.New(bashCall("echo hi > made"), scripted.Turn{Text: "ok"})
	eng = h.engine(agent.WithMode(planning.ModeDefault))
	var asked bool
	for ev := range eng.Run(context.Background(), "do it") {
		if req, ok := ev.(*agent.ApprovalRequest); ok {
			asked = true
			req.Respond(agent.Deny, "not without a sandbox")
		}
	}
	if !asked {
		t.Fatal("Default mode ran an uncontained bash without asking")
	}
	if _, err := os.Stat(filepath.Join(h.dir, "made")); err == nil {
		t.Fatal("a denied bash call ran")
	}
}

// A tool whose output is a diff says so on its result (tool.DiffOutput), so
// front ends render it without knowing tool names.
func TestToolResultCarriesDiffProperty(t *testing.T) {
	h := newHarness(t, scripted.Turn{Calls: scripted.Calls(
		scripted.Call("write_file", map[string]any{"path": "a.txt", "content": "old\n"}),
		scripted.Call("edit_file", map[string]any{"path": "a.txt", "old_string": "old", "new_string": "new"}),
	)}, scripted.Turn{Text: "done"})
	evs := drain(t, h.engine().Run(context.Background(), "edit"))
	res := resultsOf(evs)
	if len(res) != 2 || res[0].Diff || !res[1].Diff || res[1].IsError {
		t.Fatalf("Diff on write_file, edit_file results = %v:\n%s", res, dump(evs))
	}
}
