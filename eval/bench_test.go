package eval_test

import (
	"context"
	"os"
	"testing"

	"github.com/harness9/harness9/eval"
	"github.com/harness9/harness9/harness"
)

// BenchmarkTaskOverhead measures what the harness adds to one run of a
// task, everything but the model and the check: copying the fixture,
// assembling the agent, the engine's turns and tools, storing nothing
// (no store), cleaning up. The smoke suite's hello task plays its script,
// so the model takes no time; overhead-ms/op subtracts the check's time.
func BenchmarkTaskOverhead(b *testing.B) {
	task, err := eval.LoadTask("../evals/smoke/hello")
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []eval.Mode{eval.Direct, eval.Plan} {
		b.Run(string(mode), func(b *testing.B) {
			r := eval.NewRunner(taskScripts, eval.WithAgentOptions(harness.WithDataDir(b.TempDir())),
				eval.WithCommandEnv(os.Environ()), eval.WithUnconfinedChecks(true))
			var overhead, check int64
			for i := 0; b.Loop(); i++ {
				rec, err := r.RunOne(context.Background(), eval.Job{Task: task, Config: eval.Config{Mode: mode, Model: eval.TaskScriptModel}, Attempt: i + 1})
				if err != nil || !rec.Pass {
					b.Fatalf("run failed: %v %+v", err, rec)
				}
				overhead += rec.WallMS - rec.ModelMS - rec.CheckMS
				check += rec.CheckMS
			}
			b.ReportMetric(float64(overhead)/float64(b.N), "overhead-ms/op")
			b.ReportMetric(float64(check)/float64(b.N), "check-ms/op")
		})
	}
}
