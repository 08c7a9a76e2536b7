package planning

import (
	"encoding/json"
	"strings"
	"testing"
)

func bashInput(cmd string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return b
}

func TestGateForPlanMode(t *testing.T) {
	g := NewGate(ModePlan, WithReadOnlyTools("read_file", "list_files", "search_files", "glob", "use_skill", "mcp_search"), WithShellTools("bash"))
	for _, name := range []string{"read_file", "list_files", "search_files", "glob", "use_skill", TodoWriteName, SubmitPlanName, "bash", "mcp_search"} {
		if !g.Visible(name) {
			t.Errorf("%s should be visible in Plan Mode", name)
		}
	}
	for _, name := range []string{"write_file", "edit_file", "mcp_write", "anything"} {
		if g.Visible(name) {
			t.Errorf("%s must not be visible in Plan Mode", name)
		}
		err := g.Check(name, json.RawMessage(`{"path":"x","content":"y"}`))
		if err == nil {
			t.Fatalf("Check(%s) in Plan Mode = nil, want a refusal", name)
		}
		for _, f := range []string{"not available in Plan Mode", "submit_plan", "read_file"} {
			if !strings.Contains(err.Error(), f) {
				t.Errorf("refusal %q should mention %q", err, f)
			}
		}
	}
	if err := g.Check("bash", bashInput("git status && ls")); err != nil {
		t.Errorf("a read-only bash command was refused: %v", err)
	}
	err := g.Check("bash", bashInput("echo x > f"))
	if err == nil || !strings.Contains(err.Error(), "read-only bash") || !strings.Contains(err.Error(), "submit_plan") {
		t.Errorf("a writing bash command: %v", err)
	}
}

// Only tools named by their properties are allowed while planning: no
// built-in name is allowed by itself.
func TestPlanGateKnowsNoToolNames(t *testing.T) {
	g := NewGate(ModePlan)
	for _, name := range []string{"read_file", "bash", "glob", "write_file"} {
		if g.Visible(name) || g.Check(name, bashInput("ls")) == nil {
			t.Errorf("%s is allowed while planning without being named read-only or shell", name)
		}
	}
	// A read-only tool is not a shell tool: its input is not parsed as a command.
	ro := NewGate(ModePlan, WithReadOnlyTools("bash"))
	if err := ro.Check("bash", bashInput("echo x > f")); err != nil {
		t.Errorf("a tool named read-only gets no command gate: %v", err)
	}
}

func TestGateForBashInputTricks(t *testing.T) {
	g := NewGate(ModePlan, WithShellTools("bash"))
	for _, in := range []string{
		`{"command":"ls","Command":"rm -rf x"}`,
		`{"command":"ls","COMMAND":"rm -rf x"}`,
		`{"timeout_secs":5}`,
		`{"command":42}`,
		`not json`,
		`{"command":"ls","command":"rm x"}`, // encoding/json keeps the last: rm x
	} {
		if err := g.Check("bash", json.RawMessage(in)); err == nil {
			t.Errorf("Check(bash, %s) = nil, want refusal", in)
		}
	}
	if err := g.Check("bash", json.RawMessage(`{"command":"ls","timeout_secs":5}`)); err != nil {
		t.Errorf("extra bash fields should not matter: %v", err)
	}
}

func TestGateForOtherModes(t *testing.T) {
	for _, m := range []Mode{ModeDefault, ModeAutoEdit} {
		g := GateFor(m)
		for _, name := range []string{"write_file", "edit_file", "bash", TodoWriteName, "read_file"} {
			if !g.Visible(name) || g.Check(name, bashInput("rm -rf build")) != nil {
				t.Errorf("%v: %s should be allowed", m, name)
			}
		}
		if g.Visible(SubmitPlanName) {
			t.Errorf("%v: submit_plan must be hidden outside Plan Mode", m)
		}
		err := g.Check(SubmitPlanName, json.RawMessage(`{}`))
		if err == nil || !strings.Contains(err.Error(), "only available in Plan Mode") {
			t.Errorf("%v: submit_plan call: %v", m, err)
		}
	}
}
