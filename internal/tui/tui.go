// Package tui is harness9's terminal interface, a Bubble Tea v2 program. It
// only renders state and dispatches the user's intent: every planning rule
// (the Plan Mode gate, todo validation, auto-execution and stall detection)
// lives in the agent and planning packages, and the TUI shows their events.
//
// One root model owns the state. Its children (transcript, input, status bar,
// dialogs) are plain structs that render for a width; dialogs return an
// action for the root to carry out. Engine streams run in goroutines and
// reach Update as messages, so Update never blocks on I/O.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/memory"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
)

// Engine is what the TUI needs from an agent engine. *agent.Engine
// satisfies it; tests use fakes that replay events.
type Engine interface {
	Run(ctx context.Context, prompt string) iter.Seq[agent.Event]
	// Review carries out the user's choice about a plan awaiting approval
	// and returns the run it starts, if any.
	Review(choice planning.ReviewChoice, feedback string) (func(context.Context) iter.Seq[agent.Event], error)
	Continue(ctx context.Context) iter.Seq[agent.Event]
	Compact(ctx context.Context) iter.Seq[agent.Event]
	SetMode(planning.Mode)
	Mode() planning.Mode
	NextStep() planning.Step
	Todos() []planning.TodoItem
	Plan() *planning.Plan
	SessionID() string
	History() []llm.Message
}

// CustomCommand is a custom slash command as the menu and /help show it.
type CustomCommand struct {
	Name string // with the leading "/"
	Args string // argument hint
	Help string // description
}

// Attachment is a prompt as Attach prepared it.
type Attachment struct {
	Prompt  string      // what the model receives
	Images  []llm.Image // pictures to send with it
	Summary string      // one line saying what was attached or left out
}

// runnerWith is an Engine that takes run options (*agent.Engine).
type runnerWith interface {
	RunWith(ctx context.Context, prompt string, o agent.RunOptions) iter.Seq[agent.Event]
}

// SessionInfo is one row of the /resume picker.
type SessionInfo struct {
	ID      string
	Title   string
	Updated time.Time
	// Done and Total count the session's todo items (completed / all).
	Done, Total int
	Messages    int
}

// SetupInfo describes a missing provider configuration. When Options.Setup
// is non-nil the TUI opens on a setup screen instead of a session.
type SetupInfo struct {
	// Problem is one line saying what is missing, e.g.
	// "OPENAI_API_KEY is not set (model openai/gpt-4.1)".
	Problem string
	// ConfigPath is the config.toml the user may edit.
	ConfigPath string
	// StartDemo, when set, is offered on the setup screen: it returns the
	// options of a scripted demo session, which the TUI then opens.
	StartDemo func() (Options, error)
}

// Options configure Run. NewEngine is required unless Setup is set.
type Options struct {
	// NewEngine opens a session: a fresh one for resumeID "", else the
	// stored session with that id. Used at start, by /new and by /resume.
	NewEngine func(resumeID string) (Engine, error)
	// ResumeID is the session to open at start ("" = new session).
	ResumeID string
	// Sessions lists this workdir's sessions for /resume, newest first.
	Sessions func() ([]SessionInfo, error)
	// Memory is where "# note" lines go and what /memory lists; nil turns
	// both off.
	Memory *memory.Book
	// Workdir is shown on the welcome screen.
	Workdir string
	// ModelLabel is "provider/model", shown in the status bar.
	ModelLabel string
	// Sandbox says whether bash runs in the kernel sandbox, for the status
	// bar: SandboxEnforced shows nothing alarming; otherwise SandboxLabel is
	// shown in red ("SANDBOX OFF", "NO SANDBOX").
	SandboxEnforced bool
	SandboxLabel    string
	// Fullscreen draws the conversation in the alternate screen with a
	// scrollable window (PgUp/PgDn, End) instead of printing finished
	// blocks into the terminal's scrollback, which is the default.
	Fullscreen bool
	// Mouse captures the mouse for wheel scrolling in full-screen mode.
	// Off by default, so the transcript can be selected and copied with
	// the terminal's own mouse handling (PgUp/PgDn scroll either way).
	Mouse bool
	// ContextWindow is the model's window in tokens, used for the context
	// gauge until the engine reports usage.
	ContextWindow int
	// SkillsList and MCPStatus feed /skills and /mcp (one line per entry).
	SkillsList func() []string
	MCPStatus  func() []string
	// Files lists the workdir's files (gitignore respected) for @path
	// completion; nil turns completion off. Called once, off the UI loop.
	Files func() ([]string, error)
	// Mentions are more sources of "@" completion besides Files (an MCP
	// server's resources): each gets the text typed after "@" and returns
	// its candidates, best first. Called off the UI loop.
	Mentions []func(prefix string) []string
	// Attach prepares every prompt (after Expand) off the UI loop: the
	// files and MCP resources it mentions with @ appended, a line calling
	// an MCP prompt (/mcp__server__prompt) replaced by the server's
	// prompt. Its Summary is shown before the run; an error is shown
	// instead of running. nil sends prompts as typed.
	Attach func(ctx context.Context, prompt string) (Attachment, error)
	// Models lists what /model offers (PROVIDER/MODEL, current first);
	// SetModel makes name the model of the engines NewEngine opens from
	// now on. Either nil: /model is not available.
	Models   func() []string
	SetModel func(name string) error
	// Effort is the reasoning effort the engines start with; SetEffort
	// makes e that of the engines NewEngine opens from now on (/effort;
	// nil: /effort is not available).
	Effort    llm.Effort
	SetEffort func(e llm.Effort)
	// Usage returns a session's token use by model ("provider/model"),
	// its sub-agents' included, for the status bar's totals and cost when
	// the session is opened again; nil: they start at zero. Called off the
	// UI loop.
	Usage func(sessionID string) (map[string]llm.Usage, error)
	// Price returns a model's price, for the session's cost; ok is false
	// when unknown (tokens only are shown).
	Price func(model string) (llm.Price, bool)
	// Commands are the custom slash commands, listed in the / menu and
	// /help after the built-ins (which they never replace); Expand turns a
	// line calling one into the prompt and run options to send, with a
	// note for the user when something was not as asked. ok is false for
	// a line that calls none.
	Commands []CustomCommand
	Expand   func(line string) (prompt string, o agent.RunOptions, note string, ok bool)
	// LoadImage reads an image file the user names in a prompt (@shot.png,
	// or a pasted path); nil turns image attachment off. It decides which
	// files may be read (the CLI refuses the credential deny list).
	LoadImage func(path string) (llm.Image, error)
	// Notices carries the runtime's notices and warnings (a project's
	// servers not started, a skill skipped), shown as notes as they come;
	// nil: none.
	Notices <-chan string
	// ErrorAdvice says what the user can do about a failed run's error
	// (a refused key: check it, run `harness9 doctor`); "" when nothing.
	ErrorAdvice func(error) string
	// Setup, when non-nil, means no provider is configured.
	Setup *SetupInfo
	// DemoBanner, when set, is shown on a banner line (the scripted demo).
	DemoBanner string
	// InitialPrompt pre-fills the input.
	InitialPrompt string
	// InitialMode is the mode the first session starts in.
	InitialMode planning.Mode
	// HistoryFile, when set, keeps the input history across restarts
	// (↑/↓ recall prompts of earlier runs).
	HistoryFile string
	// AutoSend sends InitialPrompt as soon as the session is open (the
	// demo plays itself up to the review dialog).
	AutoSend bool
	// Now is the clock for session ages (default time.Now).
	Now func() time.Time
	// DialogDelay is how long a dialog that decides something (plan
	// review, permission, undo) ignores keys after it appears; keys typed
	// meanwhile go to the editor. 0 means DefaultDialogDelay, a negative
	// value none.
	DialogDelay time.Duration
	// Input and Output default to the terminal (stdin/stdout).
	Input  io.Reader
	Output io.Writer
}

// goodbye prints, after the screen is restored, where the user left off:
// the session id and the command that resumes it (the demo: its workdir).
func goodbye(w io.Writer, m *model) {
	switch {
	case m.opts.DemoBanner != "" && m.opts.Workdir != "":
		fmt.Fprintf(w, "The demo's files are in %s\n", m.opts.Workdir)
	case m.sessionID != "":
		cmd := "harness9 --resume " + m.sessionID
		if wd, err := os.Getwd(); err == nil && m.opts.Workdir != "" && wd != m.opts.Workdir {
			cmd = fmt.Sprintf("harness9 -C %q --resume %s", m.opts.Workdir, m.sessionID)
		}
		fmt.Fprintf(w, "Session %s — resume it with: %s\n", m.sessionID, cmd)
	}
}

// streamDrain bounds how long Run waits for a cancelled turn to save itself.
const streamDrain = 20 * time.Second

// waitStreams waits for wg, at most d.
func waitStreams(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// ErrNotTerminal is returned by Run when stdin is not a terminal.
var ErrNotTerminal = errors.New("stdin is not a terminal: use `harness9 run PROMPT` (or `harness9 run -` to read the prompt from stdin) for headless use")

// Run starts the TUI and returns when the user quits or ctx ends.
func Run(ctx context.Context, opts Options) error {
	if opts.NewEngine == nil && opts.Setup == nil {
		return errors.New("tui: Options.NewEngine is required")
	}
	if opts.Input == nil && !term.IsTerminal(os.Stdin.Fd()) {
		return ErrNotTerminal
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := newModel(ctx, opts)
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	p := tea.NewProgram(m, popts...)
	_, err := p.Run()
	// A turn still running (the user quit, or SIGTERM ended ctx) stops as
	// Ctrl+C stops it; its cancelled tool calls and todos are saved before
	// the process goes on to exit.
	cancel()
	waitStreams(m.streams, streamDrain)
	// However the program ended (a signal, the caller's context), a draft
	// left in the editor goes to the history: quitting loses no text.
	if save := appendHistory(opts.HistoryFile, m.in.take()); save != nil {
		save()
	}
	if err == nil || errors.Is(err, tea.ErrInterrupted) {
		out := opts.Output
		if out == nil {
			out = os.Stdout
		}
		// What the user saw in the live area, and the rows of a long
		// block still going out in parts, stay in the terminal.
		_, _ = io.WriteString(out, m.unsent())
		goodbye(out, m)
	}
	switch {
	case err == nil, errors.Is(err, tea.ErrInterrupted):
		return nil
	case errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, tea.ErrProgramPanic) && ctx.Err() != nil:
		return nil // the caller's context ended the program
	}
	return fmt.Errorf("terminal UI: %w", err)
}
