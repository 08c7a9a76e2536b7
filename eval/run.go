package eval

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"time"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/planning"
)

// run is one job under way.
type run struct {
	r   *Runner
	job Job
	rec *Record
	dir string // the run's directory: work/ is the workdir, tests/ the task's tests
}

func (rn *run) do(ctx context.Context) error {
	t, rec := rn.job.Task, rn.rec
	work := filepath.Join(rn.dir, "work")
	if err := prepareWorkdir(ctx, t, work, rn.r.env); err != nil {
		return fmt.Errorf("eval: task %s: %w", t.Name, err)
	}
	p, model, err := rn.r.provider(ctx, t, rn.job.Config)
	if err != nil {
		return fmt.Errorf("eval: task %s, model %s: %w", t.Name, rn.job.Config.Model, err)
	}
	meter := &meter{p: p}
	a, err := harness.New(ctx, meter, work, append(rn.r.agentOpts, harness.WithModel(model))...)
	if err != nil {
		return fmt.Errorf("eval: assembling the agent: %w", err)
	}
	defer a.Close()
	cmds := &commands{sb: a.Sandbox(), dir: work, env: rn.r.env, unconfined: rn.r.unconfined}
	for _, s := range t.Setup {
		out := cmds.run(ctx, s, t.CheckTimeout, nil)
		if out.err != nil || out.exit != 0 {
			rec.Error = fmt.Sprintf("setup command %q failed: %s", s, out.describe())
			return nil
		}
	}
	if err := rn.agent(ctx, a, meter); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return nil // interrupted: RunOne drops the record
	}
	rec.Turns, rec.Tokens, rec.ModelMS = meter.totals()
	if rn.r.price != nil {
		pr, ok := rn.r.price(rn.job.Config.Model) // "provider/model"
		if !ok {
			pr, ok = rn.r.price(model)
		}
		if ok {
			rec.Cost = pr.Cost(rec.Tokens)
		}
	}
	return rn.check(ctx, cmds)
}

// agent runs the instruction to its end: in Plan mode the plan the model
// submits is approved at once and executed until done or stalled.
func (rn *run) agent(ctx context.Context, a *harness.Agent, m *meter) error {
	t, rec := rn.job.Task, rn.rec
	mode := planning.ModeDefault
	if rn.job.Config.Mode == Plan {
		mode = planning.ModePlan
	}
	opts := append(append([]agent.Option{}, rn.r.engineOpts...), agent.WithMode(mode), agent.WithMaxTurns(t.MaxTurns))
	eng, err := a.NewEngine(opts...)
	if err != nil {
		return fmt.Errorf("eval: opening an engine: %w", err)
	}
	runCtx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	status, runErr := rn.play(eng.Run(runCtx, t.Instruction))
	if status == agent.RunAwaitingApproval {
		start, err := eng.Review(planning.ReviewApprove, "")
		if err != nil {
			return fmt.Errorf("eval: approving the plan: %w", err)
		}
		status, runErr = rn.play(start(runCtx))
	}
	rec.SessionID = eng.SessionID()
	rec.Status = string(status)
	if errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		rec.TimedOut = true
	}
	if status == agent.RunError && runErr != nil {
		rec.Error = runErr.Error()
	}
	return nil
}

// play consumes a run's events, counting what the record keeps.
func (rn *run) play(events iter.Seq[agent.Event]) (agent.RunStatus, error) {
	rec := rn.rec
	var status agent.RunStatus
	var err error
	for ev := range events {
		switch ev := ev.(type) {
		case agent.ToolCall:
			rec.ToolCalls++
		case agent.ToolResult:
			if ev.Refused != "" {
				rec.SandboxRefusals++
			}
			if ev.IsError {
				rec.ToolErrors++
				if ev.Name == planning.TodoWriteName && planning.IsEvidenceRefusal(ev.Output) {
					rec.EvidenceRefusals++
				}
			}
		case agent.PlanSubmitted:
			rec.Plans++
			if rec.Plans > 1 {
				rec.Refinements++
			}
		case agent.ExecRound:
			rec.ExecRounds++
		case agent.Stalled:
			rec.Stalls++
		case *agent.ApprovalRequest:
			// Nobody is there to ask: refused as headless runs refuse.
			ev.Respond(agent.Refuse, "refused: an eval run cannot ask for permission; allow it with a rule in config.toml")
		case agent.Done:
			status, err = ev.Status, ev.Err
		}
	}
	return status, err
}

// check runs the task's check command in the workdir.
func (rn *run) check(ctx context.Context, cmds *commands) error {
	t, rec := rn.job.Task, rn.rec
	env := map[string]string{}
	if t.TestsDir != "" {
		tests := filepath.Join(rn.dir, "tests")
		if err := copyTree(t.TestsDir, tests); err != nil {
			return fmt.Errorf("eval: copying the tests of %s: %w", t.Name, err)
		}
		env["TEST_DIR"] = tests
	}
	start := time.Now()
	out := cmds.run(ctx, t.Check, t.CheckTimeout, env)
	rec.CheckMS = time.Since(start).Milliseconds()
	rec.CheckOutput = out.output
	switch {
	case out.err != nil:
		rec.Error = "check: " + out.err.Error()
	case out.timedOut:
		rec.CheckOutput += fmt.Sprintf("\n[check timed out after %s]", t.CheckTimeout)
	default:
		rec.CheckExit = out.exit
		rec.Pass = out.exit == 0
	}
	return nil
}
