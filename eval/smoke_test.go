package eval_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/harness9/harness9/eval"
	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/session/sqlite"
)

// taskScripts plays each task's own script.
func taskScripts(_ context.Context, t *eval.Task, c eval.Config) (llm.Provider, string, error) {
	p, err := eval.TaskScript(t, c.Mode)
	return p, "task", err
}

// runSmoke runs evals/smoke in both modes with the task scripts, into a
// results file, and returns the records.
func runSmoke(t *testing.T, results string, opts ...eval.Option) []eval.Record {
	t.Helper()
	tasks, err := eval.LoadSuite("../evals/smoke")
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	store, err := sqlite.Open(filepath.Join(data, "harness9.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	base := []eval.Option{
		eval.WithAgentOptions(harness.WithDataDir(data), harness.WithStore(store), harness.WithEnv(os.Environ())),
		eval.WithCommandEnv(os.Environ()),
		eval.WithPrice(func(string) (llm.Price, bool) { return llm.Price{Input: 1, Output: 10}, true }),
	}
	r := eval.NewRunner(taskScripts, append(base, opts...)...)
	res, err := eval.OpenResults(results, false)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	configs := []eval.Config{{Mode: eval.Plan, Model: eval.TaskScriptModel}, {Mode: eval.Direct, Model: eval.TaskScriptModel}}
	if err := r.Run(context.Background(), eval.Jobs(tasks, configs, 1), res, nil); err != nil {
		t.Fatal(err)
	}
	recs, err := eval.ReadResults(results)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestSmokeDump(t *testing.T) {
	recs := runSmoke(t, filepath.Join(t.TempDir(), "r.jsonl"))
	for _, r := range recs {
		r.Started = r.Started.Truncate(0)
		b, _ := json.Marshal(r)
		t.Log(string(b))
	}
}
