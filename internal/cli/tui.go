package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/internal/demo"
	"github.com/harness9/harness9/internal/memory"
	"github.com/harness9/harness9/internal/trust"
	"github.com/harness9/harness9/internal/tui"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// maxCompletionFiles bounds the file list @ completion walks.
const maxCompletionFiles = 50000

// demoPace and demoPause slow the TUI demo so a person can follow it: a
// few characters per pace, a beat before each step.
const (
	demoPace  = 25 * time.Millisecond
	demoPause = 900 * time.Millisecond
)

// tuiFlags are the root command's flags that open the TUI on a session.
type tuiFlags struct {
	resume     string
	cont       bool
	mouse      bool
	fullscreen bool
}

// addTUIFlags adds --resume and --continue to the root command (the TUI).
func addTUIFlags(root *cobra.Command) *tuiFlags {
	f := &tuiFlags{}
	root.Flags().StringVar(&f.resume, "resume", "", "open the TUI on the session with this id (or unique id prefix)")
	root.Flags().BoolVar(&f.cont, "continue", false, "open the TUI on the latest session of this workdir")
	root.Flags().BoolVar(&f.fullscreen, "fullscreen", false, "draw the conversation on the alternate screen with its own scrolling, instead of in the terminal's scrollback")
	root.Flags().BoolVar(&f.mouse, "mouse", false, "with --fullscreen: capture the mouse for wheel scrolling (the transcript can then not be selected and copied)")
	return f
}

func runTUI(ctx context.Context, e *env, g *globals, tf *tuiFlags) error {
	if tf.resume != "" && tf.cont {
		return usageErr("use either --resume ID or --continue, not both")
	}
	if !e.isTerminal() {
		return usageErr("%v", tui.ErrNotTerminal)
	}
	c, err := g.load(e, config.Flags{})
	if err != nil {
		return err
	}
	p, r, err := newProvider(c, e.getenv)
	if errors.Is(err, config.ErrNoProvider) {
		var closeDemo func()
		defer func() {
			if closeDemo != nil {
				closeDemo()
			}
		}()
		return tuiErr(tui.Run(ctx, tui.Options{Setup: &tui.SetupInfo{
			Problem:    strings.TrimPrefix(err.Error(), config.ErrNoProvider.Error()+": "),
			ConfigPath: c.File,
			StartDemo: func() (tui.Options, error) {
				opts, closeFn, err := demoTUIOptions(ctx, e)
				closeDemo = closeFn
				return opts, err
			},
		}}))
	}
	if err != nil {
		return err
	}
	if quit, err := askTrustAtStart(ctx, c); err != nil || quit {
		return err
	}
	notes := newNoteSink()
	e.logToNotes(notes)
	rt, err := newRuntime(ctx, e, c, p, r, withNotices(notes))
	if err != nil {
		return err
	}
	defer rt.Close()
	opts := rt.tuiOptions(ctx)
	opts.Notices = notes.ch
	opts.ResumeID = tf.resume
	opts.Mouse = tf.mouse
	opts.Fullscreen = tf.fullscreen
	if tf.cont {
		list, err := rt.store.List(ctx, session.ListOptions{Workdir: c.Workdir, Limit: 1})
		if err != nil {
			return withCode(ExitError, err)
		}
		if len(list) == 0 {
			return usageErr("--continue: no earlier session in %s", c.Workdir)
		}
		opts.ResumeID = list[0].ID
	}
	return tuiErr(tui.Run(ctx, opts))
}

// askTrustAtStart asks, once, whether the project's servers and hooks may
// run, when it has some and the user has not decided about these files
// (package trust). The answer is stored either way, so the question comes
// back only when the files change. It reports whether the user quit.
func askTrustAtStart(ctx context.Context, c *config.Config) (quit bool, err error) {
	m, err := projectManifest(c)
	if err != nil || m.Empty() || c.TrustProject {
		return false, nil // an unreadable .mcp.json starts nothing; the runtime says so
	}
	store := trust.NewStore(c.Home)
	st, err := store.State(c.Workdir, m.Hash)
	if err != nil {
		return false, withCode(ExitUsage, err)
	}
	if st.Decision != trust.Unknown {
		return false, nil
	}
	q := tui.TrustQuestion{Workdir: c.Workdir, Changed: st.Changed}
	for _, it := range m.Items {
		q.Items = append(q.Items, it.String())
	}
	choice, err := tui.AskTrust(ctx, q)
	if err != nil {
		return false, tuiErr(err)
	}
	d := trust.Declined
	switch choice {
	case tui.TrustQuit:
		return true, nil
	case tui.TrustAccept:
		d = trust.Trusted
	}
	if err := store.Decide(c.Workdir, d, m.Hash, time.Now()); err != nil {
		return false, withCode(ExitUsage, err)
	}
	return false, nil
}

func tuiErr(err error) error {
	if errors.Is(err, tui.ErrNotTerminal) {
		return withCode(ExitUsage, err)
	}
	return withCode(ExitError, err)
}

// tuiOptions connects the TUI to this wiring's engines, store, skills and MCP servers.
func (rt *wiring) tuiOptions(ctx context.Context) tui.Options {
	book := memory.New(rt.cfg.Workdir, rt.cfg.Home).WithWorkspace(func(dir string) (*tool.Workspace, error) {
		return projectWorkspace(rt.cfg, dir)
	})
	return tui.Options{
		Memory: &book,
		NewEngine: func(resumeID string) (tui.Engine, error) {
			return rt.newEngine(engineOptions{resumeID: resumeID, userInput: true})
		},
		LoadImage: func(path string) (llm.Image, error) {
			return loadImage(rt.ws, promptPath(rt.cfg.Workdir, path))
		},
		Sessions: func() ([]tui.SessionInfo, error) {
			list, err := rt.store.List(ctx, session.ListOptions{Workdir: rt.cfg.Workdir, Limit: 50})
			if err != nil {
				return nil, err
			}
			infos := make([]tui.SessionInfo, 0, len(list))
			for _, s := range list {
				st, err := rt.store.LoadState(ctx, s.ID)
				if err != nil {
					return nil, err
				}
				done, _, total := planning.Progress(st.Todos)
				infos = append(infos, tui.SessionInfo{ID: s.ID, Title: s.Title, Updated: s.Updated, Done: done, Total: total, Messages: s.MessageCount})
			}
			return infos, nil
		},
		Files: func() ([]string, error) {
			files, _, err := builtin.Files(ctx, rt.ws, maxCompletionFiles)
			return files, err
		},
		Mentions: []func(string) []string{rt.resourceCompletion(ctx)},
		Attach:   rt.tuiAttach,
		Models:   func() []string { return rt.cfg.ModelChoices(os.Getenv) },
		SetModel: func(name string) error {
			return rt.setModel(name)
		},
		Effort:          rt.resolved.Effort,
		SetEffort:       rt.setEffort,
		Price:           rt.cfg.PriceOf,
		Usage:           rt.sessionUsage(ctx),
		Commands:        rt.tuiCommands(),
		ErrorAdvice:     rt.modelAdvice,
		Expand:          rt.expandCommand,
		Workdir:         rt.cfg.Workdir,
		HistoryFile:     filepath.Join(rt.cfg.Home, "history"),
		ModelLabel:      rt.cfg.Model,
		SandboxEnforced: rt.sandbox != nil && rt.sandbox.Support().Available,
		SandboxLabel:    sandboxLabel(rt),
		ContextWindow:   contextWindow(rt.cfg, rt.resolved),
		SkillsList: func() []string {
			var out []string
			for _, s := range rt.skills {
				out = append(out, s.Name+" — "+s.Description)
			}
			return out
		},
		MCPStatus: func() []string {
			if rt.mcp == nil {
				return nil
			}
			var out []string
			for _, st := range rt.mcp.Status() {
				out = append(out, fmt.Sprintf("%s (%s): %s", st.Name, st.Transport, serverState(st)))
			}
			return out
		},
	}
}

func newDemoCmd(e *env, g *globals) *cobra.Command {
	var headlessMode bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Play a scripted plan → approve → execute session in a temporary git repository (no key, no network)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if headlessMode {
				return runDemoHeadless(cmd.Context(), e)
			}
			if !e.isTerminal() {
				return usageErr("the demo's TUI needs a terminal; use harness9 demo --headless for JSONL")
			}
			opts, closeDemo, err := demoTUIOptions(cmd.Context(), e)
			if err != nil {
				return err
			}
			defer closeDemo()
			return tuiErr(tui.Run(cmd.Context(), opts))
		},
	}
	cmd.Flags().BoolVar(&headlessMode, "headless", false, "print the demo session as JSONL events instead of opening the TUI")
	return cmd
}

// demoWiring prepares the demo workdir and wires it like a real session,
// with its own data directory so the demo never touches the user's
// sessions; closing the wiring removes that directory (the workdir, with
// the files the demo wrote, stays).
func demoWiring(ctx context.Context, e *env, logw io.Writer, opts ...demo.Option) (*wiring, *demo.Demo, error) {
	d, err := demo.Prepare("", opts...)
	if err != nil {
		return nil, nil, withCode(ExitError, err)
	}
	home, err := os.MkdirTemp("", "harness9-demo-home-")
	if err != nil {
		return nil, nil, withCode(ExitError, err)
	}
	getenv := func(k string) string {
		switch k {
		case config.EnvHome:
			return home
		case config.EnvStore:
			return "" // the demo's sessions stay in its temporary SQLite file, never a shared database
		}
		return e.getenv(k)
	}
	removeHome := func() { _ = os.RemoveAll(home) }
	c, err := config.Load(config.Flags{Workdir: d.Workdir, Model: d.Model}, getenv)
	if err != nil {
		removeHome()
		return nil, nil, withCode(ExitError, err)
	}
	c.MCPServers = nil
	r := config.Resolved{Name: config.TypeScripted, Model: "demo", Provider: config.Provider{Type: config.TypeScripted}}
	rt, err := newRuntime(ctx, e, c, d.Provider, r, withNotices(logw))
	if err != nil {
		removeHome()
		return nil, nil, err
	}
	rt.onClose = append(rt.onClose, removeHome)
	return rt, d, nil
}

// demoTUIOptions wires the demo for the TUI; closeDemo, called once the
// TUI has ended, closes the wiring and removes the demo's data directory.
func demoTUIOptions(ctx context.Context, e *env) (opts tui.Options, closeDemo func(), err error) {
	notes := newNoteSink()
	e.logToNotes(notes)
	rt, d, err := demoWiring(ctx, e, notes, demo.WithPace(demoPace), demo.WithPause(demoPause))
	if err != nil {
		return tui.Options{}, nil, err
	}
	opts = rt.tuiOptions(ctx)
	opts.Notices = notes.ch
	opts.DemoBanner = d.Banner
	opts.InitialPrompt = d.Prompt
	opts.InitialMode = planning.ModePlan
	// The demo plays itself up to the review dialog, then the user decides.
	opts.AutoSend = true
	opts.HistoryFile = "" // the demo's prompts are not the user's history
	return opts, rt.Close, nil
}

func runDemoHeadless(ctx context.Context, e *env) error {
	rt, d, err := demoWiring(ctx, e, e.stderr)
	if err != nil {
		return err
	}
	defer rt.Close()
	eng, err := rt.newEngine(engineOptions{})
	if err != nil {
		return err
	}
	out := newOutput(e, true)
	h := &headless{e: e, eng: eng, out: out, approve: approveAuto}
	status, err := h.drive(ctx, &runFlags{plan: true}, d.Prompt)
	if err != nil {
		return err
	}
	out.done(status)
	fmt.Fprintf(e.stderr, "demo workdir: %s\n", d.Workdir)
	return exitFor(status)
}

// sessionUsage reads a session's token use by model from the store's usage
// ledger (its sub-agents' included), for the totals of a session opened
// again; nil when the store keeps no usage.
func (rt *wiring) sessionUsage(ctx context.Context) func(id string) (map[string]llm.Usage, error) {
	us, ok := rt.store.(session.UsageStore)
	if !ok {
		return nil
	}
	return func(id string) (map[string]llm.Usage, error) {
		rows, err := us.UsageReport(ctx, session.UsageQuery{By: session.BySession, Session: id})
		if err != nil {
			return nil, fmt.Errorf("reading the usage of session %s: %w", id, err)
		}
		out := map[string]llm.Usage{}
		for _, r := range rows {
			if r.Total || r.Model == "" {
				continue
			}
			u := out[r.Model]
			u.InputTokens += r.InputTokens
			u.OutputTokens += r.OutputTokens
			u.CacheReadTokens += r.CacheReadTokens
			u.CacheWriteTokens += r.CacheWriteTokens
			u.ReasoningTokens += r.ReasoningTokens
			out[r.Model] = u
		}
		return out, nil
	}
}
