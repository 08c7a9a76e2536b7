package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/eval"
	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/llm"
)

type evalFlags struct {
	mode     string
	models   []string
	repeat   int
	parallel int
	asJSON   bool
	out      string
	fresh    bool
	tags     []string
	tasks    []string
	keep     bool
	html     string
}

func newEvalCmd(e *env, g *globals) *cobra.Command {
	var f evalFlags
	cmd := &cobra.Command{
		Use:   "eval SUITE",
		Short: "Run an eval suite: each task in a fresh copy, checked; plan vs direct, models, pass@k",
		Long: "Runs every task of the suite directory SUITE (a directory per task with task.toml, or Terminal-Bench's\n" +
			"task.yaml) in a fresh copy of its fixture, headless, in the kernel sandbox, with the plan approved\n" +
			"automatically in plan mode; then runs the task's check command (also in the sandbox) and records the run.\n" +
			"Runs are appended to the results file (--out) as they finish: a rerun with the same file resumes,\n" +
			"Ctrl+C keeps what finished. Each run is a stored session (harness9 sessions show ID).\n" +
			"-m scripted/task plays each task's own script (script.<mode>.json), offline.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runEval(cmd.Context(), e, g, &f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.mode, "mode", "both", "plan (plan, approve automatically, execute), direct (Default mode throughout) or both")
	fl.StringArrayVarP(&f.models, "model", "m", nil, "model as PROVIDER/MODEL, repeatable to compare models (default: the configured model)")
	fl.IntVar(&f.repeat, "repeat", 1, "runs of each task under each configuration (pass@k with k = repeat)")
	fl.IntVar(&f.parallel, "parallel", 1, "runs at once, at most the number of CPUs and [agents] max_parallel")
	fl.BoolVar(&f.asJSON, "json", false, "print one JSON line per run, then one per configuration's summary")
	fl.StringVar(&f.out, "out", "", "results file, appended as runs finish (default: SUITE-NAME.eval.jsonl in the current directory)")
	fl.BoolVar(&f.fresh, "fresh", false, "empty the results file first instead of resuming")
	fl.StringArrayVar(&f.tags, "tag", nil, "only tasks with this tag (repeatable: any of them)")
	fl.StringArrayVar(&f.tasks, "task", nil, "only the task of this name (repeatable)")
	fl.BoolVar(&f.keep, "keep", false, "keep each run's directory (the record's dir) instead of deleting it")
	fl.StringVar(&f.html, "html", "", "also write an HTML report (offline, plots inline) to this file")
	cmd.AddCommand(newEvalCompareCmd(e), newEvalReportCmd(e))
	return cmd
}

// evalConfigs are the configurations the flags ask for.
func evalConfigs(f *evalFlags, defaultModel string) ([]eval.Config, error) {
	var modes []eval.Mode
	switch f.mode {
	case "plan":
		modes = []eval.Mode{eval.Plan}
	case "direct":
		modes = []eval.Mode{eval.Direct}
	case "both":
		modes = []eval.Mode{eval.Plan, eval.Direct}
	default:
		return nil, usageErr("--mode must be plan, direct or both, not %q", f.mode)
	}
	models := f.models
	if len(models) == 0 {
		if defaultModel == "" {
			return nil, usageErr("no model: give one with -m PROVIDER/MODEL (or -m %s to play the tasks' scripts)", eval.TaskScriptModel)
		}
		models = []string{defaultModel}
	}
	var out []eval.Config
	for _, m := range models {
		for _, mode := range modes {
			out = append(out, eval.Config{Mode: mode, Model: m})
		}
	}
	return out, nil
}

func selectTasks(tasks []*eval.Task, f *evalFlags) ([]*eval.Task, error) {
	var out []*eval.Task
	for _, t := range tasks {
		if (len(f.tasks) == 0 || slices.Contains(f.tasks, t.Name)) && t.HasTag(f.tags) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, usageErr("no task of the suite matches --task %v --tag %v", f.tasks, f.tags)
	}
	return out, nil
}

func runEval(ctx context.Context, e *env, g *globals, f *evalFlags, suite string) error {
	if f.repeat < 1 || f.parallel < 1 {
		return usageErr("--repeat and --parallel must be at least 1")
	}
	c, err := g.load(e, config.Flags{})
	if err != nil {
		return err
	}
	all, err := eval.LoadSuite(suite)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	tasks, err := selectTasks(all, f)
	if err != nil {
		return err
	}
	configs, err := evalConfigs(f, c.Model)
	if err != nil {
		return err
	}
	providers, err := evalProviders(c, e.getenv, configs)
	if err != nil {
		return err
	}
	if err := checkHomeWritable(c.Home); err != nil {
		return withCode(ExitUsage, err)
	}
	store, err := openStore(ctx, c)
	if err != nil {
		return err
	}
	defer store.Close()
	out := f.out
	if out == "" {
		out = filepath.Base(filepath.Clean(suite)) + ".eval.jsonl"
	}
	res, err := eval.OpenResults(out, f.fresh)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	defer res.Close()

	parallel := min(f.parallel, runtime.NumCPU())
	if c.Agents.MaxParallel > 0 {
		parallel = min(parallel, c.Agents.MaxParallel)
	}
	r := eval.NewRunner(providers,
		eval.WithAgentOptions(append(environment(c, e.getenv),
			harness.WithGatedPlanBash(c.Sandbox.PlanBash == config.PlanBashGated),
			harness.WithStore(store), harness.WithLogger(e.log()))...),
		eval.WithEngineOptions(agent.WithToolTimeout(c.ToolTimeout), agent.WithMaxToolOutput(c.MaxToolOutput),
			agent.WithEvidenceGate(c.EvidenceGate), agent.WithStallThreshold(c.StallThreshold), agent.WithMaxExecRounds(c.MaxExecRounds)),
		eval.WithCommandEnv(os.Environ()),
		eval.WithUnconfinedChecks(c.Sandbox.Mode == config.SandboxOff),
		eval.WithPrice(c.PriceOf),
		eval.WithParallel(parallel),
		eval.WithKeep(f.keep))

	jobs := eval.Jobs(tasks, configs, f.repeat)
	pending := eval.Pending(jobs, res)
	if skipped := len(jobs) - len(pending); skipped > 0 && !f.asJSON {
		fmt.Fprintf(e.stderr, "resuming %s: %d of %d runs already done\n", out, skipped, len(jobs))
	}
	bar := newProgress(e.stderr, len(jobs), len(jobs)-len(pending), !f.asJSON && isTerminal(e.stderr))
	var mu sync.Mutex
	runErr := r.Run(ctx, pending, res, func(rec eval.Record) {
		mu.Lock()
		defer mu.Unlock()
		if f.asJSON {
			writeJSONLine(e.stdout, rec)
		}
		bar.step(rec)
	})
	bar.finish()
	recs := inJobs(res.Done(), jobs)
	sums := eval.Summarize(recs)
	if f.asJSON {
		for _, s := range sums {
			writeJSONLine(e.stdout, s)
		}
	} else {
		if err := eval.WriteTable(e.stdout, sums); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout)
		if err := eval.WriteGrid(e.stdout, recs); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "results: %s (compare two with: harness9 eval compare A B)\n", out)
	}
	if f.html != "" {
		if err := writeHTMLReport(f.html, suite, recs); err != nil {
			return withCode(ExitError, err)
		}
	}
	switch {
	case errors.Is(runErr, context.Canceled):
		fmt.Fprintf(e.stderr, "interrupted: the finished runs are in %s; run the same command again to resume\n", out)
		return silent(ExitInterrupted)
	case runErr != nil:
		return withCode(ExitError, runErr)
	}
	return nil
}

// inJobs keeps the records of this eval's jobs, in job order: a results
// file may hold runs of tasks or configurations not asked for this time.
func inJobs(recs []eval.Record, jobs []eval.Job) []eval.Record {
	type key struct {
		task    string
		c       eval.Config
		attempt int
	}
	by := map[key]eval.Record{}
	for _, r := range recs {
		by[key{r.Task, r.Config(), r.Attempt}] = r
	}
	var out []eval.Record
	for _, j := range jobs {
		if r, ok := by[key{j.Task.Name, j.Config, j.Attempt}]; ok {
			out = append(out, r)
		}
	}
	return out
}

// evalProviders builds each run's provider: the task's own script for
// scripted/task, else the configured provider of the model.
func evalProviders(c *config.Config, getenv func(string) string, configs []eval.Config) (eval.ProviderFunc, error) {
	type built struct {
		p     llm.Provider
		model string
	}
	byModel := map[string]built{}
	for _, cfg := range configs {
		if cfg.Model == eval.TaskScriptModel {
			continue
		}
		if _, ok := byModel[cfg.Model]; ok {
			continue
		}
		cc := *c
		cc.Model = cfg.Model
		p, r, err := newProvider(&cc, getenv)
		if err != nil {
			return nil, err
		}
		byModel[cfg.Model] = built{p, r.Model}
	}
	return func(_ context.Context, t *eval.Task, cfg eval.Config) (llm.Provider, string, error) {
		if cfg.Model == eval.TaskScriptModel {
			p, err := eval.TaskScript(t, cfg.Mode)
			return p, "task", err
		}
		b := byModel[cfg.Model]
		return b.p, b.model, nil
	}, nil
}

func writeJSONLine(w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	_, _ = w.Write(append(b, '\n'))
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// progress draws a bar on a terminal: runs done of all, and passes.
type progress struct {
	w            io.Writer
	on           bool
	total, done  int
	passed, runs int
}

func newProgress(w io.Writer, total, done int, on bool) *progress {
	p := &progress{w: w, on: on, total: total, done: done}
	p.draw("")
	return p
}

func (p *progress) step(rec eval.Record) {
	p.done++
	p.runs++
	if rec.Pass {
		p.passed++
	}
	verdict := "fail"
	if rec.Pass {
		verdict = "pass"
	}
	p.draw(fmt.Sprintf("%s %s %s", verdict, rec.Task, rec.Config()))
}

func (p *progress) draw(last string) {
	if !p.on || p.total == 0 {
		return
	}
	const width = 30
	filled := width * p.done / p.total
	fmt.Fprintf(p.w, "\r\x1b[K[%s%s] %d/%d runs, %d/%d passed  %s", strings.Repeat("=", filled), strings.Repeat(" ", width-filled),
		p.done, p.total, p.passed, p.runs, firstLine(last, 50))
}

func (p *progress) finish() {
	if p.on {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
