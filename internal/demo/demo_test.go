package demo

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/harness9/harness9/llm/scripted"
)

func TestPrepareCreatesAGitWorkdir(t *testing.T) {
	d, err := Prepare(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(d.Workdir, "NOTES.md")); err != nil {
		t.Errorf("NOTES.md missing: %v", err)
	}
	if _, err := exec.LookPath("git"); err == nil {
		if _, err := os.Stat(filepath.Join(d.Workdir, ".git")); err != nil {
			t.Errorf("workdir is not a git repository: %v", err)
		}
	}
	if d.Prompt == "" || d.Provider == nil || d.Provider.Name() != "scripted" {
		t.Errorf("incomplete demo: %+v", d)
	}
}

func TestScriptShape(t *testing.T) {
	turns := Turns()
	var plan, writes int
	for _, tr := range turns {
		for _, c := range tr.Calls {
			if !json.Valid(c.Input) {
				t.Errorf("turn %s: invalid JSON input for %s", tr.Name, c.Name)
			}
			switch c.Name {
			case "submit_plan":
				plan++
			case "write_file":
				writes++
			}
		}
	}
	if plan != 1 || writes != len(Files) {
		t.Errorf("script has %d submit_plan and %d write_file calls; want 1 and %d", plan, writes, len(Files))
	}
	if last := turns[len(turns)-1]; len(last.Calls) != 0 || last.Text == "" {
		t.Error("the script must end with a text-only turn")
	}
}

func TestScriptJSONLoads(t *testing.T) {
	data, err := ScriptJSON()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "demo.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := scripted.LoadFile(path); err != nil {
		t.Fatalf("the JSON script does not load: %v", err)
	}
}
