package eval_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/harness9/harness9/eval"
	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/llm"
)

// Run two tasks of the smoke suite in both modes, each task playing its
// own script, and add the runs up per configuration.
func Example() {
	tasks, err := eval.LoadSuite("../evals/smoke")
	if err != nil {
		panic(err)
	}
	var picked []*eval.Task
	for _, t := range tasks {
		if t.Name == "hello" || t.Name == "wrong-answer" {
			picked = append(picked, t)
		}
	}
	data, _ := os.MkdirTemp("", "eval-example-")
	defer os.RemoveAll(data)
	scripts := func(_ context.Context, t *eval.Task, c eval.Config) (llm.Provider, string, error) {
		p, err := eval.TaskScript(t, c.Mode)
		return p, "task", err
	}
	r := eval.NewRunner(scripts,
		eval.WithAgentOptions(harness.WithDataDir(data), harness.WithEnv(os.Environ())),
		eval.WithCommandEnv(os.Environ()),
		eval.WithUnconfinedChecks(true)) // where the kernel cannot confine the checks
	res, err := eval.OpenResults(filepath.Join(data, "results.jsonl"), false)
	if err != nil {
		panic(err)
	}
	defer res.Close()
	configs := []eval.Config{{Mode: eval.Plan, Model: eval.TaskScriptModel}, {Mode: eval.Direct, Model: eval.TaskScriptModel}}
	if err := r.Run(context.Background(), eval.Jobs(picked, configs, 1), res, nil); err != nil {
		panic(err)
	}
	for _, s := range eval.Summarize(res.Done()) {
		fmt.Printf("%s: %d/%d passed, %d model calls, %d evidence refusals\n", s.Config, s.Passed, s.Runs, s.Turns, s.EvidenceRefusals)
	}
	// Unordered output:
	// plan scripted/task: 1/2 passed, 9 model calls, 1 evidence refusals
	// direct scripted/task: 1/2 passed, 4 model calls, 0 evidence refusals
}
