package eval_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/eval"
	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/sandbox"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// saysDone is a model that answers once and stops.
func saysDone(context.Context, *eval.Task, eval.Config) (llm.Provider, string, error) {
	return scripted.New(scripted.Turn{Text: "Done."}), "m", nil
}

// TestCheckConfined: the check command runs in the kernel sandbox. It may
// write the workdir; what it writes elsewhere never lands.
func TestCheckConfined(t *testing.T) {
	if sup := sandbox.Probe(); !sup.Available {
		t.Skip("the kernel sandbox is unavailable here:", sup.Reason)
	}
	suite, outside := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(suite, "escape", "task.toml"), `version = 1
instruction = "nothing"
check = "echo x > \"$OUT/escaped\"; echo y > inside.txt && test -f inside.txt"
`)
	tasks, err := eval.LoadSuite(suite)
	if err != nil {
		t.Fatal(err)
	}
	r := eval.NewRunner(saysDone, eval.WithAgentOptions(harness.WithDataDir(t.TempDir())),
		eval.WithCommandEnv([]string{"PATH=" + sandbox.DefaultPath, "OUT=" + outside}))
	rec, err := r.RunOne(context.Background(), eval.Job{Task: tasks[0], Config: eval.Config{Mode: eval.Direct, Model: "m"}, Attempt: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Pass {
		t.Fatalf("the check could not write the workdir: %+v", rec)
	}
	if _, err := os.Stat(filepath.Join(outside, "escaped")); err == nil {
		t.Fatal("the check wrote outside the workdir")
	}
}

// TestTerminalBenchTask: a Terminal-Bench task's tests reach the check
// in $TEST_DIR, never the agent's workdir.
func TestTerminalBenchTask(t *testing.T) {
	suite := t.TempDir()
	dir := filepath.Join(suite, "tb")
	writeFile(t, filepath.Join(dir, "task.yaml"), `instruction: |-
  Create answer.txt.
author_email: a@example.com
difficulty: easy
tags: [files]
max_agent_timeout_sec: 30
max_test_timeout_sec: 20
parser_name: pytest
`)
	writeFile(t, filepath.Join(dir, "run-tests.sh"), "test -f \"$TEST_DIR/secret-test.txt\" && test ! -e secret-test.txt && test ! -e answer.txt\n")
	writeFile(t, filepath.Join(dir, "tests", "secret-test.txt"), "expected\n")
	writeFile(t, filepath.Join(dir, "Dockerfile"), "FROM scratch\n")
	task, err := eval.LoadTask(dir)
	if err != nil {
		t.Fatal(err)
	}
	if task.Instruction != "Create answer.txt." || task.Timeout.Seconds() != 30 || task.CheckTimeout.Seconds() != 20 || len(task.Tags) != 1 {
		t.Fatalf("task.yaml read as %+v", task)
	}
	var seen []string
	look := func(context.Context, *eval.Task, eval.Config) (llm.Provider, string, error) {
		return scripted.New(
			scripted.Turn{Calls: scripted.Calls(scripted.Call("list_files", map[string]any{}))},
			scripted.Turn{Respond: func(req llm.Request) scripted.Turn {
				seen = append(seen, req.Messages[len(req.Messages)-1].Content)
				return scripted.Turn{Text: "Done."}
			}}), "m", nil
	}
	r := eval.NewRunner(look, eval.WithAgentOptions(harness.WithDataDir(t.TempDir())), eval.WithCommandEnv(os.Environ()),
		eval.WithUnconfinedChecks(true))
	rec, err := r.RunOne(context.Background(), eval.Job{Task: task, Config: eval.Config{Mode: eval.Direct, Model: "m"}, Attempt: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Pass {
		t.Fatalf("the check did not find the tests in $TEST_DIR: %+v", rec)
	}
	if len(seen) != 1 || strings.Contains(seen[0], "secret-test") || strings.Contains(seen[0], "run-tests") {
		t.Fatalf("the agent saw the tests: %q", seen)
	}
}

// TestInterrupt: an eval stopped after its first run keeps that run and
// records nothing of the runs it stopped.
func TestInterrupt(t *testing.T) {
	tasks, err := eval.LoadSuite("../evals/smoke")
	if err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(t.TempDir(), "results.jsonl")
	res, err := eval.OpenResults(results, false)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := eval.NewRunner(taskScripts, eval.WithAgentOptions(harness.WithDataDir(t.TempDir())), eval.WithCommandEnv(os.Environ()),
		eval.WithUnconfinedChecks(true))
	n := 0
	err = r.Run(ctx, eval.Jobs(tasks, []eval.Config{{Mode: eval.Direct, Model: eval.TaskScriptModel}}, 1), res,
		func(eval.Record) { n++; cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v, want context.Canceled", err)
	}
	recs, err := eval.ReadResults(results)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 || len(recs) != 1 || recs[0].Task != tasks[0].Name {
		t.Fatalf("%d runs reported, %d recorded (%+v), want the first one", n, len(recs), recs)
	}
}

func TestLoadTaskErrors(t *testing.T) {
	for name, body := range map[string]string{
		"no version":     "instruction = \"x\"\ncheck = \"true\"\n",
		"newer version":  "version = 2\ninstruction = \"x\"\ncheck = \"true\"\n",
		"no check":       "version = 1\ninstruction = \"x\"\n",
		"unknown field":  "version = 1\ninstruction = \"x\"\ncheck = \"true\"\ncheck_cmd = \"y\"\n",
		"fixture escape": "version = 1\ninstruction = \"x\"\ncheck = \"true\"\nfixture = \"../..\"\n",
	} {
		dir := filepath.Join(t.TempDir(), "task")
		writeFile(t, filepath.Join(dir, "task.toml"), body)
		if _, err := eval.LoadTask(dir); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
}
