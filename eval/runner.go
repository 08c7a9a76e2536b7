package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/llm"
)

// ProviderFunc gives the provider, and the model name to ask it for, that
// runs task t under configuration c. It is called once per run, so a
// stateful provider (a script) starts afresh each time.
type ProviderFunc func(ctx context.Context, t *Task, c Config) (p llm.Provider, model string, err error)

// Runner runs tasks. Build it with NewRunner.
type Runner struct {
	provider   ProviderFunc
	agentOpts  []harness.Option
	engineOpts []agent.Option
	price      func(model string) (llm.Price, bool)
	parallel   int
	tempDir    string
	keep       bool
	env        []string
	unconfined bool
	now        func() time.Time
}

// Option configures a Runner.
type Option func(*Runner)

// WithAgentOptions are the options every run's agent is assembled with
// (harness.New): home, data directory, environment, sandbox settings,
// store. The runner adds the model.
func WithAgentOptions(opts ...harness.Option) Option {
	return func(r *Runner) { r.agentOpts = append(r.agentOpts, opts...) }
}

// WithEngineOptions are added to every run's engine (stall threshold,
// evidence gate, tool timeout).
func WithEngineOptions(opts ...agent.Option) Option {
	return func(r *Runner) { r.engineOpts = append(r.engineOpts, opts...) }
}

// WithPrice prices the tokens of a run by its configuration's model
// ("provider/model"), else by the model name the provider was asked for;
// without it costs are 0.
func WithPrice(price func(model string) (llm.Price, bool)) Option {
	return func(r *Runner) { r.price = price }
}

// WithParallel runs up to n runs at once (1 by default). It is capped at
// the number of CPUs: every run starts its own commands.
func WithParallel(n int) Option { return func(r *Runner) { r.parallel = n } }

// WithTempDir is where each run's directory is made ("" is the system's).
func WithTempDir(dir string) Option { return func(r *Runner) { r.tempDir = dir } }

// WithKeep keeps each run's directory instead of deleting it: the
// workdir the agent left is <Record.Dir>/work.
func WithKeep(on bool) Option { return func(r *Runner) { r.keep = on } }

// WithCommandEnv is the environment setup and check commands start from,
// scrubbed of secrets by the sandbox (without it: PATH alone). git, when it
// clones a task's repository, starts from it too, without its GIT_*
// variables.
func WithCommandEnv(env []string) Option { return func(r *Runner) { r.env = env } }

// WithUnconfinedChecks runs setup and check commands outside the kernel
// sandbox where it is unavailable, instead of failing the run.
func WithUnconfinedChecks(on bool) Option { return func(r *Runner) { r.unconfined = on } }

// WithClock sets the clock records are stamped with.
func WithClock(now func() time.Time) Option { return func(r *Runner) { r.now = now } }

// NewRunner returns a runner that gets each run's provider from p.
func NewRunner(p ProviderFunc, opts ...Option) *Runner {
	r := &Runner{provider: p, parallel: 1, now: time.Now}
	for _, o := range opts {
		o(r)
	}
	r.parallel = max(1, min(r.parallel, runtime.NumCPU()))
	return r
}

// Job is one run to do: a task under a configuration, the attempt-th time.
type Job struct {
	Task    *Task
	Config  Config
	Attempt int
}

// Jobs lists the runs of tasks under every configuration, repeat times
// each, in the order they are started: attempt by attempt, so an
// interrupted eval has every task at least once before any twice.
func Jobs(tasks []*Task, configs []Config, repeat int) []Job {
	var jobs []Job
	for a := 1; a <= max(1, repeat); a++ {
		for _, t := range tasks {
			for _, c := range configs {
				jobs = append(jobs, Job{Task: t, Config: c, Attempt: a})
			}
		}
	}
	return jobs
}

// Pending returns the jobs res does not hold yet.
func Pending(jobs []Job, res *Results) []Job {
	var out []Job
	for _, j := range jobs {
		if res == nil || !res.has(runKey{j.Task.Name, j.Config.Mode, j.Config.Model, j.Attempt}) {
			out = append(out, j)
		}
	}
	return out
}

// errInterrupted marks a run stopped by the eval's own context: it is not
// recorded, so a rerun does it again.
var errInterrupted = errors.New("interrupted")

// Run does the jobs res does not hold yet, parallel at most at once,
// appending each finished run to res (when not nil) and passing it to
// done (when not nil; called from one goroutine at a time). When ctx ends
// the runs under way are stopped and not recorded, and Run returns ctx's
// error once they have stopped: what finished is kept.
func (r *Runner) Run(ctx context.Context, jobs []Job, res *Results, done func(Record)) error {
	jobs = Pending(jobs, res)
	work := make(chan Job)
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for range min(r.parallel, max(1, len(jobs))) {
		wg.Go(func() {
			for j := range work {
				rec, err := r.RunOne(ctx, j)
				if errors.Is(err, errInterrupted) {
					continue
				}
				mu.Lock()
				if err == nil && res != nil {
					err = res.Append(rec)
				}
				if err != nil {
					if firstErr == nil {
						firstErr = err
					}
				} else if done != nil {
					done(rec)
				}
				mu.Unlock()
			}
		})
	}
feed:
	for _, j := range jobs {
		select {
		case work <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return firstErr
}

// RunOne runs one job in a fresh copy of its fixture and checks it. A
// failure of the harness (the fixture cannot be copied, the agent cannot
// be assembled) is an error; a failure of the task (a setup command, the
// model, the check) is a record that did not pass.
func (r *Runner) RunOne(ctx context.Context, j Job) (Record, error) {
	t := j.Task
	rec := Record{Type: "run", Task: t.Name, Mode: j.Config.Mode, Model: j.Config.Model, Attempt: j.Attempt,
		Tags: t.Tags, Started: r.now().UTC(), CheckExit: -1}
	start := time.Now()
	dir, err := os.MkdirTemp(r.tempDir, "harness9-eval-")
	if err != nil {
		return rec, fmt.Errorf("eval: a directory for the run: %w", err)
	}
	if !r.keep {
		defer os.RemoveAll(dir)
	}
	if r.keep {
		rec.Dir = dir
	}
	rn := &run{r: r, job: j, rec: &rec, dir: dir}
	err = rn.do(ctx)
	rec.WallMS = time.Since(start).Milliseconds()
	if ctx.Err() != nil {
		return rec, errInterrupted
	}
	return rec, err
}
