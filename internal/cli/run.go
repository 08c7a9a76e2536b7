package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/internal/termtext"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
)

// Approval policies of `run --approve`.
const (
	approveAuto  = "auto"
	approveAsk   = "ask"
	approveNever = "never"
)

type runFlags struct {
	plan          bool
	approve       string
	resume        string
	cont          bool
	json          bool
	maxTurns      int
	contextWindow int
	images        []string
	engine        string // --engine local|temporal
	// set reports whether a flag was given on the command line.
	set func(name string) bool
}

func newRunCmd(e *env, g *globals) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run [flags] PROMPT",
		Short: "Run one task headless (PROMPT \"-\" reads it from stdin)",
		Long: "Run one task without the TUI. With --plan the agent plans read-only and submits a plan;\n" +
			"--approve decides what happens next. --json prints one JSON event per line on stdout.\n\n" +
			"Exit codes: 0 completed or awaiting approval, 1 runtime/provider error, 2 usage or\n" +
			"config error, 3 stalled, 130 interrupted.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.set = cmd.Flags().Changed
			return runHeadless(cmd.Context(), e, g, f, args)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.plan, "plan", false, "start in Plan Mode (read-only tools; ends with a plan for approval)")
	fl.StringVar(&f.approve, "approve", "", "after a plan: auto (approve and execute), ask (on the terminal), never (stop); default ask on a terminal, never otherwise. "+
		"Calls that need permission are asked about on the terminal only with ask; otherwise they are refused (see --allow)")
	fl.StringVar(&f.resume, "resume", "", "continue the session with this id (or unique id prefix)")
	fl.BoolVar(&f.cont, "continue", false, "continue the latest session of this workdir")
	fl.BoolVar(&f.json, "json", false, "print JSONL events on stdout and nothing else")
	fl.IntVar(&f.maxTurns, "max-turns", 0, "maximum model calls per run loop (default 50, config max_turns)")
	fl.IntVar(&f.contextWindow, "context-window", 0, "override the model's context window, in tokens")
	fl.StringArrayVar(&f.images, "image", nil, "attach an image file (PNG, JPEG, GIF, WebP) to the prompt; repeatable")
	fl.StringVar(&f.engine, "engine", "", "where the session runs: local (in this process, the default; config engine) or temporal "+
		"(a durable workflow on a Temporal server, run by `harness9 worker` processes)")
	return cmd
}

func (f *runFlags) validate(e *env) error {
	switch f.approve {
	case "":
		f.approve = approveNever
		if e.isTerminal() {
			f.approve = approveAsk
		}
	case approveAuto, approveAsk, approveNever:
	default:
		return usageErr("--approve must be auto, ask or never, not %q", f.approve)
	}
	if f.resume != "" && f.cont {
		return usageErr("use either --resume ID or --continue, not both")
	}
	// 0 is the flags' "not given"; given explicitly it is a mistake, not
	// the default.
	if f.set != nil && f.set("max-turns") && f.maxTurns < 1 {
		return usageErr("--max-turns must be at least 1, not %d (leave it out for the default, config max_turns)", f.maxTurns)
	}
	if f.set != nil && f.set("context-window") && f.contextWindow < 1 {
		return usageErr("--context-window must be a positive number of tokens, not %d", f.contextWindow)
	}
	return nil
}

// readPrompt returns the prompt argument, or stdin for "-". A prompt that
// was given but holds nothing, or is not UTF-8 text, is a usage error: it
// would be stored in the session for good.
func readPrompt(e *env, args []string) (string, error) {
	if len(args) == 0 {
		return "", nil
	}
	raw, from := args[0], "given as PROMPT"
	if raw == "-" {
		b, err := io.ReadAll(e.stdin)
		if err != nil {
			return "", withCode(ExitError, fmt.Errorf("cannot read the prompt from stdin: %w", err))
		}
		raw, from = string(b), "read from stdin"
		if strings.TrimSpace(raw) == "" {
			return "", usageErr("the prompt read from stdin (\"-\") was empty; pipe the prompt in, e.g. echo 'fix the tests' | harness9 run -")
		}
	}
	if strings.TrimSpace(raw) == "" {
		return "", usageErr("the prompt is empty (only white space); give the task as PROMPT")
	}
	if !utf8.ValidString(raw) {
		return "", usageErr("the prompt %s is not UTF-8 text (invalid byte at offset %d); convert it first, e.g. iconv -f LATIN1 -t UTF-8", from, invalidUTF8At(raw))
	}
	return strings.TrimSpace(raw), nil
}

// invalidUTF8At is the byte offset of the first invalid UTF-8 sequence in s.
func invalidUTF8At(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return i
			}
		}
	}
	return len(s)
}

// checkPromptSize refuses a prompt that cannot fit in the model's context
// window next to the system prompt: stored, it would make every later
// request of the session fail, so the session could never be resumed.
func checkPromptSize(rt *wiring, prompt string) error {
	window := contextWindow(rt.cfg, rt.resolved)
	if prompt == "" || window <= 0 {
		return nil
	}
	// A token covers at least a byte: a prompt that fits in bytes fits,
	// and the tokenizer (tens of milliseconds to load) is not needed.
	if compact.TokenBound(rt.system, []llm.Message{{Role: llm.RoleUser, Content: prompt}}, nil) <= window {
		return nil
	}
	tokens := compact.EstimateTokens("", []llm.Message{{Role: llm.RoleUser, Content: prompt}}, nil)
	system := compact.EstimateTokens(rt.system, nil, nil)
	if tokens+system <= window {
		return nil
	}
	return usageErr("the prompt is about %d tokens; with the system prompt (%d) it does not fit the context window of %s (%d tokens). "+
		"Shorten it, or save the text in a file in the workdir and ask the agent to read the parts it needs (--context-window N if the model's window is larger)",
		tokens, system, rt.cfg.Model, window)
}

func runHeadless(ctx context.Context, e *env, g *globals, f *runFlags, args []string) error {
	if err := f.validate(e); err != nil {
		return err
	}
	prompt, err := readPrompt(e, args)
	if err != nil {
		return err
	}
	if prompt == "" && f.resume == "" && !f.cont {
		return usageErr("run needs a PROMPT (or \"-\" to read it from stdin); see harness9 run --help")
	}
	if prompt == "" && len(f.images) > 0 {
		return usageErr("--image needs a PROMPT to go with it, e.g. harness9 run --image shot.png \"what is wrong here?\"")
	}
	c, err := g.load(e, config.Flags{MaxTurns: f.maxTurns, ContextWindow: f.contextWindow, Engine: f.engine})
	if err != nil {
		return err
	}
	if c.Engine == config.EngineTemporal {
		return runDurable(ctx, e, c, f, prompt)
	}
	p, r, err := newProvider(c, e.getenv)
	if err != nil {
		return err
	}
	rt, err := newRuntime(ctx, e, c, p, r)
	if err != nil {
		return err
	}
	defer rt.Close()
	var runOpts agent.RunOptions
	if expanded, o, note, ok := rt.expandCommand(prompt); ok {
		if note != "" {
			rt.notice(note)
		}
		prompt, runOpts = expanded, o
	}
	prompt, attached, notes, err := rt.attach(ctx, prompt)
	if err != nil {
		return err
	}
	for _, n := range notes {
		rt.notice(n)
	}
	if err := checkPromptSize(rt, prompt); err != nil {
		return err
	}
	images, err := loadImages(rt.ws, f.images)
	if err != nil {
		return err
	}
	images = append(images, attached...)
	if err := checkVision(rt, images); err != nil {
		return err
	}

	resumeID := f.resume
	if f.cont {
		list, err := rt.store.List(ctx, session.ListOptions{Workdir: c.Workdir, Limit: 1})
		if err != nil {
			return withCode(ExitError, err)
		}
		if len(list) == 0 {
			return usageErr("--continue: no earlier session in %s", c.Workdir)
		}
		resumeID = list[0].ID
	}
	eng, err := rt.newEngine(engineOptions{resumeID: resumeID})
	if err != nil {
		return err
	}
	// One trace for the whole command: the plan, its approval, its
	// execution (the engine's runs are children of this span).
	ctx, span := rt.tel.StartCommand(ctx, "harness9 run")
	defer span.End()
	out := newOutput(e, f.json)
	if sc := span.SpanContext(); sc.IsValid() {
		out.traceID = sc.TraceID().String()
	}
	out.advise = rt.modelAdvice
	out.notices(c.Warnings...)
	out.notices(rt.takeNotices()...)
	runOpts.Images = images
	h := &headless{e: e, eng: eng, out: out, approve: f.approve, maxTurns: c.MaxTurns, runOpts: runOpts}
	status, err := h.drive(ctx, f, prompt)
	if err != nil {
		return err
	}
	out.done(status)
	h.explainEnd(status)
	return exitFor(status)
}

// explainEnd tells the person how to go on after a run that stopped short.
func (h *headless) explainEnd(status agent.RunStatus) {
	id := h.eng.SessionID()
	if id == "" {
		return
	}
	switch status {
	case agent.RunMaxTurns:
		h.out.note("Stopped after %d model calls (--max-turns). Continue with: harness9 run --resume %s --max-turns N \"carry on\"",
			h.maxTurns, id)
	case agent.RunStalled:
		h.out.note("Auto-execution stopped. Say what to do next with: harness9 run --resume %s \"PROMPT\", or retry it with: harness9 run --resume %s --approve auto", id, id)
	case agent.RunCancelled:
		if h.eng.NextStep() == planning.StepContinue {
			h.out.note("Interrupted; the session is saved. Continue the plan with: harness9 run --resume %s --approve auto", id)
		}
	case agent.RunError:
		if h.eng.NextStep() == planning.StepContinue {
			h.out.note("The session is saved up to the error. Once it is fixed, continue the plan with: harness9 run --resume %s --approve auto", id)
		} else {
			h.out.note("The session is saved up to the error. Once it is fixed, go on with: harness9 run --resume %s \"PROMPT\"", id)
		}
	}
}

// exitFor maps a run's final status to the process exit code.
func exitFor(s agent.RunStatus) error {
	switch s {
	case agent.RunCompleted, agent.RunAwaitingApproval:
		return nil
	case agent.RunStalled:
		return silent(ExitStalled)
	case agent.RunCancelled:
		return silent(ExitInterrupted)
	default: // error, max_turns
		return silent(ExitError)
	}
}

// headless drives an engine from the command line: it plays event streams
// to the output and answers approvals from --approve or the terminal.
type headless struct {
	e       *env
	eng     *agent.Engine
	out     *output
	approve string
	// maxTurns is the run's model-call limit, for the message when it is hit.
	maxTurns int
	lines    chan lineRead // terminal answers, read by one goroutine (see line)
	// runOpts are a custom command's options for the prompt's run.
	runOpts agent.RunOptions
}

type lineRead struct {
	s   string
	err error
}

// drive runs the prompt (or resumes the session's pending work) and any
// approval that follows, returning the final status.
func (h *headless) drive(ctx context.Context, f *runFlags, prompt string) (agent.RunStatus, error) {
	if prompt == "" {
		// Resuming without a prompt: act on the session's planning state.
		switch h.eng.NextStep() {
		case planning.StepReview:
			return h.afterPlan(ctx)
		case planning.StepContinue:
			if h.approve == approveNever {
				return "", usageErr("the session has an approved plan in progress; pass --approve auto to continue executing it, or give a PROMPT")
			}
			return h.play(ctx, h.eng.Continue(ctx))
		}
		return "", usageErr("the session has no plan awaiting approval or in progress; give a PROMPT")
	}
	if f.plan {
		h.eng.SetMode(planning.ModePlan)
	}
	status, err := h.play(ctx, h.eng.RunWith(ctx, prompt, h.runOpts))
	if err != nil || status != agent.RunAwaitingApproval {
		return status, err
	}
	return h.afterPlan(ctx)
}

// afterPlan applies the approval policy to a submitted plan.
func (h *headless) afterPlan(ctx context.Context) (agent.RunStatus, error) {
	choice := planning.ReviewRefine // keep the plan for later
	switch h.approve {
	case approveAuto:
		choice = planning.ReviewApprove
	case approveAsk:
		c, err := h.askPlan(ctx)
		if ctx.Err() != nil {
			return agent.RunCancelled, nil
		}
		if err != nil {
			return "", err
		}
		choice = c
	}
	start, err := h.eng.Review(choice, "")
	switch {
	case err != nil:
		return "", withCode(ExitError, err)
	case start != nil:
		return h.play(ctx, start(ctx))
	case choice == planning.ReviewCancel:
		return agent.RunCompleted, nil
	}
	h.out.note("The plan awaits approval. Approve it later with: harness9 run --resume %s --approve auto", h.eng.SessionID())
	return agent.RunAwaitingApproval, nil
}

// line reads one answer from the terminal, or returns ctx's error when the
// run is interrupted first: a read of stdin cannot be cancelled, so one
// goroutine does the reading and hands the lines over. It ends at EOF or a
// read error; afterwards line reports io.EOF.
func (h *headless) line(ctx context.Context) (string, error) {
	if h.lines == nil {
		h.lines = make(chan lineRead)
		go func() {
			defer close(h.lines)
			r := bufio.NewReader(h.e.stdin)
			for {
				s, err := r.ReadString('\n')
				if err != nil && s == "" {
					h.lines <- lineRead{err: err}
					return
				}
				h.lines <- lineRead{s: strings.TrimSpace(s)}
			}
		}()
	}
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case l, ok := <-h.lines:
		if !ok {
			return "", io.EOF
		}
		return l.s, l.err
	}
}

func (h *headless) askPlan(ctx context.Context) (planning.ReviewChoice, error) {
	for {
		fmt.Fprint(h.e.stderr, "\nApprove this plan?\n  [1] approve and auto-execute\n  [2] approve and confirm each edit\n  [3] keep it (decide later)\n  [4] cancel the plan\n> ")
		s, err := h.line(ctx)
		if errors.Is(err, io.EOF) {
			return planning.ReviewRefine, nil
		}
		if err != nil {
			return 0, withCode(ExitError, err)
		}
		if c, err := planning.ParseReviewChoice(s); err == nil {
			return c, nil
		}
	}
}

// askEdit answers an approval request: on the terminal with --approve
// ask, else with a refusal that tells the model (and the person reading
// the run) which --allow rule would permit the call.
func (h *headless) askEdit(ctx context.Context, req *agent.ApprovalRequest) {
	if h.approve != approveAsk {
		req.Respond(agent.Refuse, refusal(req))
		return
	}
	req.Respond(h.askCall(ctx, req))
}

// askCall puts a call that needs permission to the user on the terminal
// and returns the answer: allow once, always for the project (when a rule
// covers the call), or deny with a reason the model is told.
func (h *headless) askCall(ctx context.Context, req *agent.ApprovalRequest) (agent.Decision, string) {
	always := ""
	if len(req.Rules) > 0 {
		always = fmt.Sprintf("  [a] always for this project (%s)", termtext.Clean(strings.Join(req.Rules, ", ")))
	}
	// The call's name and preview are the model's text: a cursor move or a
	// carriage return must not show the user a different call than the one
	// they allow.
	fmt.Fprintf(h.e.stderr, "\n%s wants to run (%s):\n%s\nAllow? [y] once%s  [n] deny: ",
		termtext.Clean(req.Call.Name), termtext.Clean(req.Why), termtext.Clean(req.Preview), always)
	s, err := h.line(ctx)
	switch {
	case err != nil:
		return agent.Deny, "the user did not answer"
	case s == "y" || s == "Y" || s == "yes":
		return agent.AllowOnce, ""
	case (s == "a" || s == "A") && always != "":
		return agent.AllowProject, ""
	}
	fmt.Fprint(h.e.stderr, "Reason (sent to the model): ")
	reason, _ := h.line(ctx)
	return agent.Deny, reason
}

// play writes a stream to the output and returns its final status.
func (h *headless) play(ctx context.Context, events iter.Seq[agent.Event]) (agent.RunStatus, error) {
	status := agent.RunError
	for ev := range events {
		if req, ok := ev.(*agent.ApprovalRequest); ok {
			h.out.event(ev)
			h.askEdit(ctx, req)
			continue
		}
		if d, ok := ev.(agent.Done); ok {
			status = d.Status
		}
		h.out.event(ev)
	}
	return status, nil
}
