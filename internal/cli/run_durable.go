//go:build temporal

package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/durable"
	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/internal/termtext"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
)

// runDurable is `run --engine temporal`: the session's plan → approve →
// execute runs as a Temporal workflow on the workers of this host's task
// queue, and this process only starts it, prints its events and answers
// its review per --approve. The session lives in the store as with the
// local engine, so `sessions show` reads it.
func runDurable(ctx context.Context, e *env, c *config.Config, f *runFlags, prompt string) error {
	if _, _, err := newProvider(c, e.getenv); err != nil {
		return err // the workers use the same model: a missing key is a usage error here too
	}
	store, err := openStore(ctx, c)
	if err != nil {
		return err
	}
	defer store.Close()
	sess, err := durableSession(ctx, store, c, f, prompt)
	if err != nil {
		return err
	}
	tc, err := dialTemporal(ctx, e, c)
	if err != nil {
		return err
	}
	defer tc.Close()
	running, err := durable.Running(ctx, tc, sess.ID)
	if err != nil {
		return withCode(ExitError, fmt.Errorf("cannot ask Temporal about session %s: %w", sess.ID, err))
	}
	switch {
	case running && prompt != "":
		return errBusyWorkflow(sess.ID)
	case !running:
		in, err := durableInput(ctx, store, c, f, sess, prompt)
		if err != nil {
			return err
		}
		if err := durable.Start(ctx, tc, in); err != nil {
			return withCode(ExitError, err)
		}
	}
	d := &durableRun{e: e, tc: tc, out: newOutput(e, f.json), id: sess.ID, approve: f.approve}
	status, err := d.follow(ctx, durable.NewFollower(tc))
	if err != nil {
		return err
	}
	d.out.done(status)
	return exitFor(status)
}

// durableSession creates the session of a new run, or finds the one
// --resume / --continue names.
func durableSession(ctx context.Context, store session.Store, c *config.Config, f *runFlags, prompt string) (session.Session, error) {
	id := f.resume
	if f.cont {
		list, err := store.List(ctx, session.ListOptions{Workdir: c.Workdir, Limit: 1})
		if err != nil {
			return session.Session{}, withCode(ExitError, err)
		}
		if len(list) == 0 {
			return session.Session{}, usageErr("--continue: no earlier session in %s", c.Workdir)
		}
		id = list[0].ID
	}
	if id != "" {
		s, err := store.Get(ctx, id)
		if err != nil {
			return s, storeErr(err)
		}
		if s.Workdir != c.Workdir {
			return s, usageErr("session %s belongs to %s, not to %s; resume it there with -C %s", s.ID, s.Workdir, c.Workdir, shellQuote(s.Workdir))
		}
		return s, nil
	}
	mode := planning.ModeDefault
	if f.plan {
		mode = planning.ModePlan
	}
	s := &session.Session{Workdir: c.Workdir, Model: c.Model, Title: agent.SessionTitle(prompt), Mode: mode}
	if err := store.Create(ctx, s); err != nil {
		return *s, withCode(ExitError, fmt.Errorf("cannot create the session: %w", err))
	}
	return *s, nil
}

// durableInput is the workflow's input: the prompt, or without one the
// session's pending work (a plan to review, an approved plan to continue).
func durableInput(ctx context.Context, store session.Store, c *config.Config, f *runFlags, sess session.Session, prompt string) (durable.Input, error) {
	in := durable.Input{SessionID: sess.ID, Prompt: prompt, Mode: sess.Mode, AutoApprove: f.approve == approveAuto,
		TaskQueue: taskQueue(c), HistoryLen: sess.MessageCount, MaxTurns: c.MaxTurns, StallThreshold: c.StallThreshold,
		MaxRounds: c.MaxExecRounds, HeartbeatTimeout: c.Temporal.HeartbeatTimeout, AskTimeout: c.Temporal.AskTimeout,
		// The worker wires the engine from its own config: the window
		// this run was given (--context-window, context_window) travels.
		Settings: durable.Settings{ContextWindow: c.ContextWindow}}
	if f.plan {
		in.Mode = planning.ModePlan
	} else if prompt != "" && in.Mode == planning.ModePlan {
		in.Mode = planning.ModeDefault
	}
	if prompt != "" {
		return in, nil
	}
	st, err := store.LoadState(ctx, sess.ID)
	if err != nil {
		return in, withCode(ExitError, err)
	}
	flow := planning.RestoreWorkflow(planning.WorkflowState{Status: st.Status, Plan: st.Plan, TaskDir: st.TaskDir})
	switch flow.Resume() {
	case planning.StepReview:
		in.Review = true
	case planning.StepContinue:
		if f.approve == approveNever {
			return in, usageErr("the session has an approved plan in progress; pass --approve auto to continue executing it, or give a PROMPT")
		}
		in.Continue = true // the workflow's continue step takes the mode and the todo list from the store
	default:
		return in, usageErr("the session has no plan awaiting approval or in progress; give a PROMPT")
	}
	return in, nil
}

// durableRun follows one session's workflow from the command line.
type durableRun struct {
	e       *env
	tc      client.Client
	out     *output
	id      string
	approve string // --approve policy; "" when following after a review was sent
	term    *headless
}

// event plays one of the workflow's events. A permission question is
// printed as a local run prints it; with --approve ask it is asked on the
// terminal and the answer sent to the workflow, otherwise the workflow
// waits for an answer from elsewhere (serve, `sessions answer`), and the
// note says how to give one.
func (d *durableRun) event(ctx context.Context, ev agent.Event) {
	switch ev := ev.(type) {
	case durable.PermissionAnswered:
		return // a local run's stream has no such event
	case *agent.ApprovalRequest:
		d.out.event(ev)
		if !d.waiting(ctx, ev.Call.ID) {
			return // an earlier question, answered already (a replay)
		}
		if d.approve != approveAsk {
			d.out.note("The workflow waits for an answer to %s (%s). Answer it with: harness9 sessions answer %s %s allow|always|deny [--reason TEXT]",
				termtext.Clean(ev.Call.Name), ev.Call.ID, d.id, ev.Call.ID)
			return
		}
		decision, reason := d.terminal().askCall(ctx, ev)
		a := durable.PermissionAnswer{Ask: ev.Call.ID, Answer: answerWord(decision), Reason: reason}
		if err := durable.AnswerPermission(ctx, d.tc, d.id, a); err != nil {
			d.out.note("Your answer was not taken: %v", err)
		}
		return
	}
	d.out.event(ev)
}

// terminal is where --approve ask asks: one reader of stdin for the plan
// and every question.
func (d *durableRun) terminal() *headless {
	if d.term == nil {
		d.term = &headless{e: d.e, out: d.out, approve: d.approve}
	}
	return d.term
}

// waiting reports whether the workflow waits on question ask now.
func (d *durableRun) waiting(ctx context.Context, ask string) bool {
	qs, err := durable.Questions(ctx, d.tc, d.id)
	if err != nil {
		return true // no worker answers the query: assume it waits
	}
	for _, q := range qs {
		if q.ID == ask {
			return true
		}
	}
	return false
}

// answerWord is the word of serve's API and `sessions answer` for a
// terminal answer.
func answerWord(d agent.Decision) string {
	switch d {
	case agent.AllowOnce:
		return "allow"
	case agent.AllowProject, agent.AllowSession:
		return "always"
	}
	return "deny"
}

// follow prints the workflow's events until it ends, answering a review it
// waits for per the --approve policy. Interrupting the follower cancels the
// workflow, as Ctrl+C cancels a local run.
func (d *durableRun) follow(ctx context.Context, fol *durable.Follower) (agent.RunStatus, error) {
	for {
		st, err := fol.Follow(ctx, d.id, true, func(ev agent.Event) { d.event(ctx, ev) })
		if ctx.Err() != nil {
			if cerr := durable.Cancel(context.WithoutCancel(ctx), d.tc, d.id); cerr != nil && !isNoWorkflow(cerr) {
				d.out.note("Could not cancel the workflow of session %s: %v", d.id, cerr)
			}
			return agent.RunCancelled, nil
		}
		if err != nil {
			return "", withCode(ExitError, err)
		}
		if st.Finished {
			if st.Result == agent.RunStalled {
				d.out.note("Auto-execution stopped. Retry it with: harness9 run --engine temporal --resume %s --approve auto", d.id)
			}
			return st.Result, nil
		}
		choice := planning.ReviewRefine
		switch d.approve {
		case approveAuto:
			choice = planning.ReviewApprove
		case approveAsk:
			if choice, err = d.terminal().askPlan(ctx); err != nil {
				return "", err
			}
		}
		if choice == planning.ReviewRefine {
			d.out.note("The plan awaits approval; the workflow waits for it. Approve it with: harness9 sessions approve %s "+
				"(or refine %s FEEDBACK, cancel %s)", d.id, d.id, d.id)
			return agent.RunAwaitingApproval, nil
		}
		if err := durable.SendReview(ctx, d.tc, d.id, durable.Review{Choice: choice}); err != nil {
			return "", withCode(ExitError, err)
		}
		fol.Answered()
	}
}

// Review actions of `sessions approve|refine|cancel`.
func newSessionsReviewCmds(e *env, g *globals) []*cobra.Command {
	var mode string
	var asJSON bool
	approve := &cobra.Command{
		Use:   "approve ID",
		Short: "Approve the plan a durable session's workflow waits for, and follow its execution",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			choice := planning.ReviewApprove
			switch mode {
			case "auto":
			case "confirm":
				choice = planning.ReviewApproveConfirm
			default:
				return usageErr("--mode must be auto or confirm, not %q", mode)
			}
			return reviewDurable(cmd.Context(), e, g, args[0], durable.Review{Choice: choice}, asJSON)
		},
	}
	approve.Flags().StringVar(&mode, "mode", "auto", "auto: edits run at once; confirm: each edit waits for a yes (harness9 sessions answer, serve's API or page)")
	refine := &cobra.Command{
		Use:   "refine ID FEEDBACK",
		Short: "Send feedback on the plan a durable session's workflow waits for; it plans again",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return reviewDurable(cmd.Context(), e, g, args[0], durable.Review{Choice: planning.ReviewRefine, Feedback: args[1]}, asJSON)
		},
	}
	cancel := &cobra.Command{
		Use:   "cancel ID",
		Short: "Cancel a durable session's workflow: drop the plan it waits for, or stop its execution",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return reviewDurable(cmd.Context(), e, g, args[0], durable.Review{Choice: planning.ReviewCancel}, asJSON)
		},
	}
	for _, c := range []*cobra.Command{approve, refine, cancel} {
		c.Flags().BoolVar(&asJSON, "json", false, "print JSONL events on stdout and nothing else")
	}
	return []*cobra.Command{approve, refine, cancel, newSessionsAnswerCmd(e, g)}
}

// openWorkflow finds the session idArg names and connects to Temporal,
// for a command that acts on the session's workflow in progress; without
// one it is a usage error that ends with orElse(the session's id). Close
// the client.
func openWorkflow(ctx context.Context, e *env, g *globals, idArg string, orElse func(id string) string) (*config.Config, session.Session, client.Client, error) {
	c, err := g.load(e, config.Flags{})
	if err != nil {
		return nil, session.Session{}, nil, err
	}
	store, err := openStore(ctx, c)
	if err != nil {
		return nil, session.Session{}, nil, err
	}
	sess, err := store.Get(ctx, idArg)
	store.Close()
	if err != nil {
		return nil, sess, nil, storeErr(err)
	}
	tc, err := dialTemporal(ctx, e, c)
	if err != nil {
		return nil, sess, nil, err
	}
	running, err := durable.Running(ctx, tc, sess.ID)
	if err != nil {
		err = withCode(ExitError, fmt.Errorf("cannot ask Temporal about session %s: %w", sess.ID, err))
	} else if !running {
		err = usageErr("session %s has no durable workflow in progress; %s", sess.ID, orElse(sess.ID))
	}
	if err != nil {
		tc.Close()
		return nil, sess, nil, err
	}
	return c, sess, tc, nil
}

// reviewDurable sends a review to a session's workflow and follows it
// until it ends or waits for the next review.
func reviewDurable(ctx context.Context, e *env, g *globals, idArg string, r durable.Review, asJSON bool) error {
	c, sess, tc, err := openWorkflow(ctx, e, g, idArg, func(id string) string {
		return "start one with: harness9 run --engine temporal --resume " + id
	})
	if err != nil {
		return err
	}
	defer tc.Close()
	st, err := durable.Query(ctx, tc, sess.ID, 0)
	for err == nil && len(st.Events) > 0 {
		// Skip to the end: only what the review causes is printed.
		st, err = durable.Query(ctx, tc, sess.ID, st.Next)
	}
	switch {
	case err != nil && r.Choice == planning.ReviewCancel:
		// No worker answers the query: cancelling needs none.
		err = durable.Cancel(ctx, tc, sess.ID)
	case err != nil:
		// No worker answers the query; the signal waits for one.
		fmt.Fprintf(e.stderr, "harness9: no worker answers for session %s (%v); the review is recorded and runs when a worker polls %s\n", sess.ID, err, taskQueue(c))
		err = durable.SendReview(ctx, tc, sess.ID, r)
	case r.Choice == planning.ReviewCancel && !st.Waiting:
		err = durable.Cancel(ctx, tc, sess.ID)
	case !st.Waiting:
		return usageErr("session %s's workflow is not waiting for a review (phase %s)", sess.ID, st.Phase)
	default:
		err = durable.SendReview(ctx, tc, sess.ID, r)
	}
	if err != nil {
		return withCode(ExitError, err)
	}
	out := newOutput(e, asJSON)
	d := &durableRun{e: e, tc: tc, out: out, id: sess.ID, approve: approveNever}
	fol := durable.NewFollower(tc, durable.FromEvent(st.Next))
	fol.Answered()
	status, err := d.follow(ctx, fol)
	if err != nil {
		return err
	}
	out.done(status)
	return exitFor(status)
}
