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
	review    *reviewDialog
	perm      *permissionDialog
	picker    chooser              // an open list picker (/resume, /model)
	onPick    func(string) tea.Cmd // what the picker's choice does
	choice    *choiceDialog        // an open question (undo, rewind, memory)

	setup       *SetupInfo
	quitArmed   bool
	permQueue   []*agent.ApprovalRequest // questions waiting behind the open one
	expandTools bool                     // Ctrl+O: tool results shown whole
	files       []string                 // the workdir's files for @ completion, once listed
	// The session's token totals since it was opened here, and their cost
	// when every model used has a price (costKnown).
	totalIn, totalOut int
	cost              float64
	costKnown         bool
	totalsFor         string // the session the totals belong to
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
		// /resume, which clear the screen only once the new session is open.
		id      string
		replace bool
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
	}
	if m.now == nil {
		m.now = time.Now
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
	return tea.Batch(load, m.openEngine(m.opts.ResumeID, false))
}

// openEngine builds an engine off the event loop: opening a session reads
// the store. With replace, the current session stays on screen (and in
// use) until the new one is open, so a bad id loses nothing.
func (m *model) openEngine(resumeID string, replace bool) tea.Cmd {
	m.loading = true
	newEngine := m.opts.NewEngine
	return func() tea.Msg {
		eng, err := newEngine(resumeID)
		if err != nil {
			return engineReadyMsg{err: err, id: resumeID, replace: replace}
		}
		var hist []llm.Message
		if resumeID != "" {
			hist = eng.History()
		}
		return engineReadyMsg{eng: eng, history: hist, id: resumeID, replace: replace}
	}
}

// Update dispatches by message type; the handlers live in update_*.go.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
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
		m.handleSessions(msg)
		return m, nil
	case demoReadyMsg:
		return m, m.handleDemoReady(msg)
	case tickMsg:
		return m, m.handleTick(msg)
	case historyMsg:
		m.in.setHistory(msg.entries)
		return m, nil
	case filesLoaded:
		if msg.err != nil {
			m.hint = "cannot list the files: " + msg.err.Error()
			return m, nil
		}
		m.files, m.hint = msg.files, ""
		if m.files == nil {
			m.files = []string{}
		}
		if _, ok := m.in.mention(); ok {
			m.completeMention()
			m.layout()
		}
		return m, nil
	}
	return m, m.in.update(msg)
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
	th := themeFor(m.mode)
	room := m.height - 3
	if m.opts.DemoBanner != "" {
		room--
	}
	room = max(room, 5)
	switch {
	case m.perm != nil:
		return m.perm.view(m.width, room, themeFor(m.runMode))
	case m.review != nil:
		return m.review.view(m.width, room, th, m.tr.md)
	case m.picker != nil:
		return m.picker.view(m.width, th)
	case m.choice != nil:
		return m.choice.view(m.width, room, th)
	}
	return m.editorPane(room)
}

// View composes the screen. The transcript's rendering is cached per
// block, so a frame costs the visible lines only.
func (m *model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	if m.opts.Mouse {
		v.MouseMode = tea.MouseModeCellMotion
	}
	v.WindowTitle = "harness9"
	v.SetContent(m.render())
	return v
}

func (m *model) render() string {
	if m.setup != nil {
		return m.setupView()
	}
	bottom := m.bottomPane()
	// The transcript height depends on the bottom pane (the input grows,
	// dialogs replace it); keep them in step without a Cmd round trip.
	if h := m.transcriptHeight(bottom); h != m.tr.height || m.width != m.tr.width {
		m.tr.setSize(m.width, h)
	}
	var parts []string
	if m.opts.DemoBanner != "" {
		parts = append(parts, warnStyle.Render(ansi.Truncate(" ▶ "+m.opts.DemoBanner, m.width, "…")))
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
