// Package cli is harness9's command line: the cobra commands, headless
// `run` with its JSONL event stream and exit codes, `sessions`, `demo`,
// `skills`, `mcp` and `version`. cmd/harness9 only calls Main.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/harness9/harness9/internal/config"
)

// Exit codes (DESIGN §4).
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitStalled     = 3
	ExitInterrupted = 130
)

// Version is set at build time with -ldflags "-X github.com/harness9/harness9/internal/cli.Version=...".
var Version = "0.1.0-dev"

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// silent is an exit code with nothing more to print (the event stream
// already said what happened).
type silent int

func (s silent) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// env is the process environment a command runs in; tests replace it.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// isTerminal reports whether stdin is an interactive terminal.
	isTerminal func() bool
	// logger is the diagnostics log (--log-level, --log-file; see log);
	// logLevel is its level, logToTerminal says it writes to stderr.
	logger        *slog.Logger
	logLevel      slog.Level
	logToTerminal bool
	// command is the running command's path, without arguments.
	command string
	// warnedTelemetry: the telemetry warning was said once.
	warnedTelemetry bool
}

// globals are the flags every command shares.
type globals struct {
	model   string
	effort  string // --effort
	workdir string
	sandbox string
	store   string   // --store
	allow   []string // --allow RULE
	deny    []string // --deny RULE
	trust   bool     // --trust-project
	// temporalAddress is --temporal-address (durable workflows).
	temporalAddress string
}

// Main runs the harness9 command line and returns the process exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, isTerminal: func() bool { return stdinIsTerminal(stdin) }}
	return run(ctx, e, args)
}

func run(ctx context.Context, e *env, args []string) int {
	root := newRoot(e)
	root.SetArgs(args)
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	err := root.ExecuteContext(ctx)
	flushTelemetry(e)
	if err == nil {
		return ExitOK
	}
	var s silent
	if errors.As(err, &s) {
		return int(s)
	}
	code := ExitUsage // cobra's own errors are flag and argument mistakes
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	fmt.Fprintf(e.stderr, "harness9: %v\n", err)
	return code
}

func newRoot(e *env) *cobra.Command {
	g := &globals{}
	var tf *tuiFlags
	root := &cobra.Command{
		Use:   "harness9",
		Short: "A local-first coding agent whose Plan Mode is enforced in code",
		Long: "harness9 is a terminal coding agent. Run it without arguments for the interactive TUI,\n" +
			"or `harness9 run PROMPT` for one headless task (add --json for JSONL events).",
		Args:          rootArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTUI(cmd.Context(), e, g, tf)
		},
	}
	tf = addTUIFlags(root)
	var lf logFlags
	var logCloser io.Closer
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		e.command = commandName(cmd.CommandPath())
		l, closer, err := newLogger(e, lf)
		if err != nil {
			return err
		}
		e.logger, logCloser = l, closer
		return nil
	}
	root.PersistentPostRun = func(*cobra.Command, []string) {
		if logCloser != nil {
			_ = logCloser.Close()
		}
	}
	root.PersistentFlags().StringVar(&lf.level, "log-level", "", "diagnostics to log: debug, info, warn (default) or error")
	root.PersistentFlags().StringVar(&lf.file, "log-file", "", "write diagnostics to this file (appended) instead of stderr")
	root.PersistentFlags().StringVarP(&g.model, "model", "m", "", "model as PROVIDER/MODEL (env "+config.EnvModel+")")
	root.PersistentFlags().StringVar(&g.effort, "effort", "", "reasoning effort of reasoning models: low, medium or high (OpenAI's reasoning_effort, an Anthropic thinking budget)")
	root.PersistentFlags().StringVarP(&g.workdir, "workdir", "C", "", "working directory (default: the current directory)")
	root.PersistentFlags().StringVar(&g.sandbox, "sandbox", "", "kernel sandbox for commands: auto (default) or off")
	root.PersistentFlags().BoolVar(&g.trust, "trust-project", false,
		"let this project's .mcp.json servers and hooks run for this invocation only, without storing a decision (see: harness9 trust)")
	root.PersistentFlags().StringVar(&g.store, "store", "", "where sessions are kept: sqlite (the default file in the data dir) or a postgres://USER@HOST/DB URL (env "+config.EnvStore+")")
	root.PersistentFlags().StringArrayVar(&g.allow, "allow", nil, "allow calls matching RULE without asking, e.g. 'bash(go test:*)' (repeatable)")
	root.PersistentFlags().StringArrayVar(&g.deny, "deny", nil, "refuse calls matching RULE, e.g. 'bash(git push:*)' (repeatable)")
	root.AddCommand(newRunCmd(e, g), requireSubcommand(newSessionsCmd(e, g)), newDemoCmd(e, g), newVersionCmd(e),
		requireSubcommand(newSkillsCmd(e, g)), requireSubcommand(newMCPCmd(e, g)), newDoctorCmd(e, g), newTrustCmd(e, g), newServeCmd(e, g), newStatsCmd(e, g), newEvalCmd(e, g))
	root.PersistentFlags().StringVar(&g.temporalAddress, "temporal-address", "", "Temporal frontend host:port for --engine temporal, worker and sessions approve/refine/cancel (config [temporal] address; default "+config.DefaultTemporalAddress+")")
	root.AddCommand(newWorkerCmd(e, g))
	root.AddCommand(newACPCmd(e, g))
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr("%v", err) })
	return root
}

// rootArgs refuses arguments to the bare command (the TUI takes none): the
// first one is a mistyped command, and the error says which one was meant.
func rootArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %s", args[0], cmd.CommandPath())
	cmd.SuggestionsMinimumDistance = 2
	if sug := cmd.SuggestionsFor(args[0]); len(sug) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(sug, " or "))
	} else {
		msg += " (harness9 --help lists the commands; `harness9 run PROMPT` runs a task)"
	}
	return usageErr("%s", msg)
}

// requireSubcommand makes a command that only groups others (sessions,
// skills, mcp) fail with a usage error when it is run bare or with an
// unknown subcommand, naming the valid ones; cobra would print the help
// and exit 0.
func requireSubcommand(cmd *cobra.Command) *cobra.Command {
	cmd.Args = cobra.ArbitraryArgs
	cmd.SuggestionsMinimumDistance = 2
	cmd.RunE = func(c *cobra.Command, args []string) error {
		var names []string
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				names = append(names, sub.Name())
			}
		}
		valid := strings.Join(names, ", ")
		if len(args) == 0 {
			return usageErr("%s needs a command: one of %s (see %s --help)", c.CommandPath(), valid, c.CommandPath())
		}
		msg := fmt.Sprintf("unknown command %q for %s; valid commands: %s", args[0], c.CommandPath(), valid)
		if sug := c.SuggestionsFor(args[0]); len(sug) > 0 {
			msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(sug, " or "))
		}
		return usageErr("%s", msg)
	}
	return cmd
}

func (g *globals) load(e *env, f config.Flags) (*config.Config, error) {
	f.Model, f.Workdir, f.Sandbox, f.Allow, f.Deny, f.TrustProject, f.Store = g.model, g.workdir, g.sandbox, g.allow, g.deny, g.trust, g.store
	f.TemporalAddress, f.Effort = g.temporalAddress, g.effort
	c, err := config.Load(f, e.getenv)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(e.stderr, "harness9: warning: %s\n", w)
	}
	return c, nil
}
