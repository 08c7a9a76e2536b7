package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness9/harness9/eval"
	"github.com/harness9/harness9/internal/cli"
)

// TestEvalJSON runs two smoke tasks in both modes through the binary: one
// JSON line per run and per configuration, the runs stored as sessions.
func TestEvalJSON(t *testing.T) {
	h := newHarness(t)
	suite, _ := filepath.Abs("../../evals/smoke")
	out := filepath.Join(t.TempDir(), "results.jsonl")
	r := h.run("", "eval", suite, "-m", eval.TaskScriptModel, "--task", "hello", "--task", "stall", "--json", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var runs, sums []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line %q is not JSON", line)
		}
		switch m["type"] {
		case "run":
			runs = append(runs, m)
		case "summary":
			sums = append(sums, m)
		}
	}
	if len(runs) != 4 || len(sums) != 2 {
		t.Fatalf("%d runs and %d summaries, want 4 and 2:\n%s", len(runs), len(sums), r.stdout)
	}
	for _, s := range sums {
		if s["runs"] != 2.0 || s["passed"] != 1.0 {
			t.Errorf("summary %v, want 1 of 2 passed", s)
		}
	}
	for _, run := range runs {
		id, _ := run["session_id"].(string)
		if shown := h.run("", "sessions", "show", id); shown.code != 0 || !strings.Contains(shown.stdout, "/work") {
			t.Errorf("run %v: sessions show %s: exit %d %s", run["task"], id, shown.code, shown.stderr)
		}
	}
	recs, err := eval.ReadResults(out)
	if err != nil || len(recs) != 4 {
		t.Fatalf("results file: %d records, %v", len(recs), err)
	}
	// The same command again resumes: nothing left to run.
	again := h.run("", "eval", suite, "-m", eval.TaskScriptModel, "--task", "hello", "--task", "stall", "--out", out)
	if again.code != 0 || !strings.Contains(again.stderr, "4 of 4 runs already done") || !strings.Contains(again.stdout, "1/2") {
		t.Fatalf("rerun: exit %d\n%s\n%s", again.code, again.stdout, again.stderr)
	}
	if recs, _ := eval.ReadResults(out); len(recs) != 4 {
		t.Fatalf("the rerun ran again: %d records", len(recs))
	}
}

// TestEvalInterrupt: Ctrl+C while a run is under way exits 130, keeps the
// finished run, and a rerun does only the rest.
func TestEvalInterrupt(t *testing.T) {
	h := newHarness(t)
	suite := t.TempDir()
	for name, script := range map[string]string{
		"a-quick": `{"turns": [{"text": "Done."}]}`,
		"b-slow":  `{"turns": [{"text": "Thinking.", "chunk_size": -1, "delay_ms": 600000}]}`,
	} {
		dir := filepath.Join(suite, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		task := "version = 1\ninstruction = \"x\"\ncheck = \"true\"\n"
		if err := os.WriteFile(filepath.Join(dir, "task.toml"), []byte(task), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "script.json"), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "results.jsonl")
	cmd := exec.Command(h.binary(), "eval", suite, "-m", eval.TaskScriptModel, "--mode", "direct", "--out", out)
	cmd.Env = h.env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for the quick run to be recorded (the slow one waits 10 minutes).
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if recs, _ := eval.ReadResults(out); len(recs) == 1 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the quick run was not recorded: %s", stderr.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != cli.ExitInterrupted {
		t.Fatalf("exit %v, want %d: %s", err, cli.ExitInterrupted, stderr.String())
	}
	recs, err := eval.ReadResults(out)
	if err != nil || len(recs) != 1 || recs[0].Task != "a-quick" {
		t.Fatalf("after the interrupt: %+v, %v", recs, err)
	}
}

func TestEvalCompare(t *testing.T) {
	h := newHarness(t)
	a, _ := filepath.Abs("../../eval/testdata/direct.jsonl")
	b, _ := filepath.Abs("../../eval/testdata/plan.jsonl")
	r := h.run("", "eval", "compare", a, b+"@plan", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var c eval.Comparison
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatal(err)
	}
	if c.A.Passed != 16 || c.B.Passed != 28 || !c.Paired || c.CILow <= 0 {
		t.Fatalf("comparison %+v", c)
	}
	text := h.run("", "eval", "compare", a, b)
	if text.code != 0 || !strings.Contains(text.stdout, "pass rate B-A  +30.0 points") {
		t.Fatalf("exit %d:\n%s%s", text.code, text.stdout, text.stderr)
	}
	for _, args := range [][]string{
		{"eval", "compare", a, b + "@sideways"},
		{"eval", "compare", a, b + "@direct"},
		{"eval", "../../evals/smoke", "-m", eval.TaskScriptModel, "--mode", "both-ish"},
		{"eval", t.TempDir(), "-m", eval.TaskScriptModel},
	} {
		if r := h.run("", args...); r.code != cli.ExitUsage {
			t.Errorf("%v: exit %d, want %d: %s", args, r.code, cli.ExitUsage, r.stderr)
		}
	}
}
