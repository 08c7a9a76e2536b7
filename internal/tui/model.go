package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
)

// model is the root model. It owns every piece of state; the children
// render for a width and report what the user chose.
type model struct {
	ctx context.Context
	// streams counts the engine streams still running (startStream), so
	// Run can wait for a cancelled turn to save itself before it returns.
	streams *sync.WaitGroup
	opts    Options
	now     func() time.Time

	eng       Engine
	sessionID string
	// mode is what the next turn runs in (Shift+Tab changes it); runMode
	// is what the running turn snapshotted, which the status bar shows
	// while it runs.
	mode, runMode planning.Mode
	todos         []planning.TodoItem
	ctxTokens     int
	ctxWindow     int

	tr *transcript
	in input

	width, height int

	// The running stream, if any.
	running bool
	cancel  context.CancelFunc
	events  chan agent.Event
	gen     int
	stream  *block            // assistant message being streamed
	calls   map[string]*block // tool blocks by call id
	exec    *agent.ExecRound  // last round of a running auto-execution
	// sawError is set when the stream reported an Error event.
	sawError bool
	// queue holds prompts typed while the agent worked; they are sent
	// together when the turn ends.
	queue []string
	// startedAt, tokensIn and tokensOut measure the running turn for the
	// progress line; spin is the spinner's frame.
	startedAt           time.Time
	tokensIn, tokensOut int
	spin                int

	plan *planning.Plan // the plan awaiting approval, if any
	// planFresh is set when the running stream submitted a plan: only then
	// does the review dialog open when it ends.
	planFresh bool

	// The open dialogs, the top one last (dialog.go); dialogSeq numbers
	// them for their guard, which lasts dialogDelay; after is its timer.
	dialogs     []*dialogFrame
	dialogSeq   int
	dialogDelay time.Duration
	after       func(time.Duration, tea.Msg) tea.Cmd

	// pager, when set, has the whole screen (Ctrl+O, Ctrl+T).
	pager *pager
	// Inline rendering (scrollback.go): print is the printer, printing is
	// set while a print is in flight, sized once the width is known.
	print    func(string) tea.Cmd
	printing bool
	sized    bool
	// unprinted are the rows of finished blocks waiting for their turn
	// to be printed (a block taller than a print's room goes in parts).
	unprinted []string

	setup     *SetupInfo
	quitArmed bool
	quitting  bool                     // the program is ending: the live area is cleared
	permQueue []*agent.ApprovalRequest // questions waiting behind the open one
	// inputQueue are tools' questions waiting behind the open one.
	inputQueue []*agent.InputRequest
	files      []string // the workdir's files for @ completion, once listed
	// The session's token totals since it was opened here, and their cost
	// when every model used has a price (costKnown).
	totalIn, totalOut int
	cost              float64
	costKnown         bool
	hint              string
	loading           bool
}

// Messages the model receives from its commands.
type (
	engineReadyMsg struct {
		eng     Engine
		history []llm.Message
		err     error
		// id is the session asked for; replace is set for /new and
		// /resume, which clear the screen only once the new session is open;
		// keep for /model and /effort, which go on with the same
		// transcript (and, with an id, the same session), noting reopened
		// once the engine is open ("" notes nothing).
		id            string
		replace, keep bool
		reopened      string
		// usage is the session's token use by model (Options.Usage).
		usage map[string]llm.Usage
	}
	tickMsg    struct{ gen int }
	historyMsg struct{ entries []string }
	streamMsg  struct {
		gen int
		ev  agent.Event
	}
	streamEndMsg struct{ gen int }
	sessionsMsg  struct {
		list []SessionInfo
		err  error
	}
	demoReadyMsg struct {
		opts Options
		err  error
	}
)

func newModel(ctx context.Context, opts Options) *model {
	m := &model{
		ctx:       ctx,
		opts:      opts,
		now:       opts.Now,
		tr:        newTranscript(),
		in:        newInput(),
		calls:     map[string]*block{},
		setup:     opts.Setup,
		mode:      opts.InitialMode,
		ctxWindow: opts.ContextWindow,
		width:     80,
		height:    24,
		costKnown: true,
		streams:   &sync.WaitGroup{},
		after:     after,
		print:     printAbove,
	}
	if m.now == nil {
		m.now = time.Now
	}
	switch {
	case opts.DialogDelay < 0:
		m.dialogDelay = 0
	case opts.DialogDelay == 0:
		m.dialogDelay = DefaultDialogDelay
	default:
		m.dialogDelay = opts.DialogDelay
	}
	if opts.InitialPrompt != "" {
		m.in.setValue(opts.InitialPrompt)
	}
	m.setModeLocal(m.mode)
	m.layout()
	return m
}

// Init opens the first session (unless the setup screen is showing).
func (m *model) Init() tea.Cmd {
	load := loadHistory(m.opts.HistoryFile)
	if m.setup != nil {
		return load
	}
	return tea.Batch(load, m.openEngine(m.opts.ResumeID, false), m.waitNotice())
}

// openEngine builds an engine off the event loop: opening a session reads
// the store. With replace, the current session stays on screen (and in
// use) until the new one is open, so a bad id loses nothing.
func (m *model) openEngine(resumeID string, replace bool) tea.Cmd {
	return m.openEngineWith(engineReadyMsg{id: resumeID, replace: replace})
}

// openEngineWith opens the session want.id; want's flags travel with the
// result to handleEngineReady.
func (m *model) openEngineWith(want engineReadyMsg) tea.Cmd {
	m.loading = true
	newEngine, usage := m.opts.NewEngine, m.opts.Usage
	return func() tea.Msg {
		msg := want
		msg.eng, msg.err = newEngine(want.id)
		if msg.err == nil && want.id != "" && !want.keep {
			msg.history = msg.eng.History()
			if usage != nil {
				// Totals are for the status bar: without them it
				// starts at zero, the session opens all the same.
				msg.usage, _ = usage(msg.eng.SessionID())
			}
		}
		return msg
	}
}

// Update dispatches by message type (the handlers live in update_*.go),
// then prints the blocks that finished (inline rendering).
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := m.update(msg)
	if p := m.flushScrollback(); p != nil {
		cmd = tea.Batch(cmd, p)
	}
	return m, cmd
}

func (m *model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height, m.sized = msg.Width, msg.Height, true
		m.layout()
		return m, nil
	case printedMsg:
		m.printing = false
		if m.quitting {
			return m, tea.Quit
		}
		return m, nil
	case noticeMsg:
		if msg.ok {
			m.note("⚠ " + msg.text)
			return m, m.waitNotice()
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.handleKey(msg)
	case tea.PasteMsg:
		return m, m.handlePaste(msg)
	case tea.MouseWheelMsg:
		m.handleWheel(msg)
		return m, nil
	case engineReadyMsg:
		return m, m.handleEngineReady(msg)
	case streamMsg:
		if msg.gen != m.gen {
			return m, nil
		}
		cmd := m.handleEvent(msg.ev)
		return m, tea.Batch(cmd, m.waitEvent())
	case streamEndMsg:
		if msg.gen != m.gen {
			return m, nil
		}
		return m, m.handleStreamEnd()
	case turnsMsg:
		return m, m.onTurns(msg)
	case conflictsMsg:
		return m, m.onConflicts(msg)
	case rewoundMsg:
		m.onRewound(msg)
		return m, nil
	case memoryAddedMsg:
		m.onMemoryAdded(msg)
		return m, nil
	case attachedMsg:
		return m, m.handleAttached(msg)
	case sessionsMsg:
		return m, m.handleSessions(msg)
	case demoReadyMsg:
		return m, m.handleDemoReady(msg)
	case tickMsg:
		return m, m.handleTick(msg)
	case dialogArmedMsg:
		m.onDialogArmed(msg)
		return m, nil
	case historyMsg:
		m.in.setHistory(msg.entries)
		return m, nil
	case filesLoaded:
		return m, m.onFilesLoaded(msg)
	case mentionsMsg:
		m.onMentions(msg)
		return m, nil
	}
	return m, m.in.update(msg)
}

// noticeMsg is one of the runtime's notices (ok is false once the
// channel is closed).
type noticeMsg struct {
	text string
	ok   bool
}

// waitNotice reads the next runtime notice.
func (m *model) waitNotice() tea.Cmd {
	ch := m.opts.Notices
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		text, ok := <-ch
		return noticeMsg{text: text, ok: ok}
	}
}

// layout sizes the children for the window.
func (m *model) layout() {
	m.in.setWidth(m.width)
	m.tr.setSize(m.width, m.transcriptHeight(m.bottomPane()))
}

// transcriptHeight is what is left after the fixed rows and the bottom pane.
func (m *model) transcriptHeight(bottom string) int {
	h := m.height - 2 - lineCount(bottom) // status bar + hint line
	if m.opts.DemoBanner != "" {
		h--
	}
	return max(h, 1)
}

// bottomPane is the dialog if one is open, else the input (with the
// queued messages and the command menu above it). A dialog gets the
// screen minus the fixed rows and one transcript line, and scrolls inside.
func (m *model) bottomPane() string {
	room := m.frameHeight() - 3
	if m.opts.DemoBanner != "" {
		room--
	}
	room = max(room, 5)
	if f := m.topDialog(); f != nil {
		return m.dialogPane(f, room)
	}
	return m.editorPane(room)
}

// View composes the screen: inline, the live area under the scrollback;
// full-screen (Options.Fullscreen), the transcript too. The pager takes the
// whole (alternate) screen in both. The transcript's rendering is cached
// per block, so a frame costs the visible lines only.
func (m *model) View() tea.View {
	var v tea.View
	v.WindowTitle = "harness9"
	switch {
	case m.pager != nil:
		v.AltScreen = true
		v.SetContent(m.pager.view(m.width, m.height))
		return v
	case m.setup != nil:
		v.AltScreen = true
		v.SetContent(m.setupView())
		return v
	case m.inline():
		v.SetContent(m.renderInline())
		return v
	}
	v.AltScreen = true
	if m.opts.Mouse {
		v.MouseMode = tea.MouseModeCellMotion
	}
	v.SetContent(m.render())
	return v
}

// render is the full-screen frame: the transcript's window, then the
// live area.
func (m *model) render() string {
	bottom := m.bottomPane()
	// The transcript height depends on the bottom pane (the input grows,
	// dialogs replace it); keep them in step without a Cmd round trip.
	if h := m.transcriptHeight(bottom); h != m.tr.height || m.width != m.tr.width {
		m.tr.setSize(m.width, h)
	}
	var parts []string
	if m.opts.DemoBanner != "" {
		parts = append(parts, demoBanner(m.opts.DemoBanner, m.width))
	}
	parts = append(parts, m.tr.view(), m.hintLine(), bottom, m.statusBar().view(m.width))
	return strings.Join(parts, "\n")
}

func (m *model) hintLine() string {
	switch {
	case m.in.searching():
		return themeFor(m.mode).accent.Render(ansi.Truncate(" "+m.in.searchLine(), m.width, "…"))
	case m.hint != "":
		return dimStyle.Render(ansi.Truncate(" "+m.hint, m.width, "…"))
	case m.running:
		return m.progressLine()
	case !m.tr.follow:
		return dimStyle.Render(" scrolled — End follows the conversation again")
	}
	return ""
}

func (m *model) statusBar() statusBar {
	done, _, total := planning.Progress(m.todos)
	s := statusBar{
		mode: m.mode, model: m.opts.ModelLabel, ctxTokens: m.ctxTokens, ctxWindow: m.ctxWindow,
		sessionID: m.sessionID, done: done, total: total,
		sandboxOK: m.opts.SandboxEnforced, sandbox: m.opts.SandboxLabel,
		usage: m.usageLabel(),
	}
	if m.opts.Effort != llm.EffortDefault {
		s.effort = string(m.opts.Effort)
	}
	if m.running {
		// The running turn keeps the tools of the mode it started in; a
		// mode chosen meanwhile is shown as what applies next.
		s.mode, s.next, s.showNext = m.runMode, m.mode, m.runMode != m.mode
	}
	switch {
	case m.exec != nil && m.running:
		s.activity = "exec round " + itoa(m.exec.Round)
	case m.running:
		s.activity = "running"
	case m.loading:
		s.activity = "opening session"
	}
	return s
}

func lineCount(s string) int { return strings.Count(s, "\n") + 1 }

// demoBanner is the demo's label line.
func demoBanner(text string, width int) string {
	return warnStyle.Render(ansi.Truncate(" ▶ "+text, width, "…"))
}

// usageLabel is the session's totals for the status bar: "12.3k tok" and,
// when every call had a price, "$0.042".
func (m *model) usageLabel() string {
	if m.totalIn+m.totalOut == 0 {
		return ""
	}
	s := formatTokens(m.totalIn+m.totalOut) + " tok"
	if m.costKnown {
		s += fmt.Sprintf(" $%.3f", m.cost)
	}
	return s
}
