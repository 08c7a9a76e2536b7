package tui

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"

	"github.com/harness9/harness9/internal/termtext"
	"github.com/harness9/harness9/planning"
)

// TrustQuestion is what the TUI asks before it starts in a project whose
// files would make harness9 run something (its .mcp.json servers, its
// hooks) and that the user has not decided about.
type TrustQuestion struct {
	Workdir string
	// Items are the things trusting enables, one line each, exactly as
	// they would run ("MCP server x: sh -c '…'").
	Items []string
	// Changed says the user decided before, about different files.
	Changed bool

	Input  io.Reader // default os.Stdin
	Output io.Writer // default os.Stdout
	// DialogDelay is how long the question ignores keys after it appears
	// (as Options.DialogDelay): 0 means DefaultDialogDelay.
	DialogDelay time.Duration
}

// TrustChoice is the user's answer.
type TrustChoice int

const (
	// TrustDecline runs without the project's servers and hooks.
	TrustDecline TrustChoice = iota
	// TrustAccept lets them run.
	TrustAccept
	// TrustQuit leaves harness9.
	TrustQuit
)

var trustOptions = []string{
	"Trust this project: its servers and hooks run (inside the sandbox)",
	"Do not trust it: start without them (asked again if these files change)",
	"Quit",
}

// trustCursor maps the options to choices, in display order.
var trustCursor = []TrustChoice{TrustAccept, TrustDecline, TrustQuit}

// AskTrust shows the question and returns the answer. Like every dialog,
// only digits, arrows and Enter act; the cursor starts on "do not trust",
// so an Enter typed ahead cannot grant anything; Esc declines and Ctrl+C
// quits.
func AskTrust(ctx context.Context, q TrustQuestion) (TrustChoice, error) {
	if q.Input == nil && !term.IsTerminal(os.Stdin.Fd()) {
		return TrustDecline, ErrNotTerminal
	}
	m := &trustModel{q: q, cursor: 1, choice: TrustQuit, delay: q.DialogDelay}
	opts := []tea.ProgramOption{tea.WithContext(ctx)}
	if q.Input != nil {
		opts = append(opts, tea.WithInput(q.Input))
	}
	if q.Output != nil {
		opts = append(opts, tea.WithOutput(q.Output))
	}
	if _, err := tea.NewProgram(m, opts...).Run(); err != nil {
		if errors.Is(err, tea.ErrInterrupted) {
			return TrustQuit, nil
		}
		return TrustQuit, err
	}
	return m.choice, nil
}

type trustModel struct {
	q             TrustQuestion
	cursor        int
	choice        TrustChoice
	width, height int
	top, rows     int // the items' scroll position and page
	// The question decides something: like every such dialog it takes no
	// key before delay has passed (armed), so an Enter typed ahead (at the
	// shell, before harness9 started) answers nothing.
	delay time.Duration
	armed bool
}

func (m *trustModel) Init() tea.Cmd {
	d := m.delay
	if d == 0 {
		d = DefaultDialogDelay
	}
	return after(d, dialogArmedMsg{})
}

func (m *trustModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case dialogArmedMsg:
		m.armed = true
	case tea.KeyPressMsg:
		k := msg.String()
		if k == "ctrl+c" {
			m.choice = TrustQuit
			return m, tea.Quit
		}
		if !m.armed {
			return m, nil
		}
		switch k {
		case "esc":
			m.choice = TrustDecline
			return m, tea.Quit
		case "up", "shift+tab":
			m.cursor = max(m.cursor-1, 0)
		case "down", "tab":
			m.cursor = min(m.cursor+1, len(trustOptions)-1)
		case "pgup":
			m.top = max(m.top-max(m.rows-1, 1), 0)
		case "pgdown":
			m.top += max(m.rows-1, 1)
		case "1", "2", "3":
			m.cursor = int(k[0] - '1')
		case "enter":
			m.choice = trustCursor[m.cursor]
			return m, tea.Quit
		}
	}
	return m, nil
}

// View draws the question on the alternate screen: it is one question
// before the session starts, and nothing of it is left on the terminal
// once answered.
func (m *trustModel) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	return v
}

// render draws the question for the window; the items scroll when they do
// not fit, so the options are always visible.
func (m *trustModel) render() string {
	th := themeFor(planning.ModeDefault)
	width, height := m.width, m.height
	if width == 0 {
		width, height = 80, 24
	}
	inner := max(min(width-4, 120), 10)
	head := []string{
		th.accent.Bold(true).Render("Trust this project?"),
		ansi.Truncate(m.q.Workdir, inner, "…"),
		"",
	}
	why := "Its files ask harness9 to run these commands. A cloned repository can put anything here; read them first:"
	if m.q.Changed {
		why = "These files changed since you last decided. Read what would run now:"
	}
	head = append(head, wrapText(why, inner)...)
	var items []string
	for _, it := range m.q.Items {
		// A cloned repository wrote it: a cursor move must not hide a command.
		for _, l := range wrapText(termtext.Clean(it), inner-2) {
			items = append(items, "  "+l)
		}
	}
	tail := []string{""}
	for i, o := range trustOptions {
		tail = append(tail, optionLines(i+1, o, i == m.cursor, false, inner, th)...)
	}
	tail = append(tail, dimStyle.Render(ansi.Truncate("1–3 or ↑/↓ pick · Enter confirms · Esc does not trust · Ctrl+C quits", inner, "…")))
	room := height - 2 - len(head) - len(tail)
	m.rows = max(room, 1)
	lines := append(head, scrollWindow(items, &m.top, m.rows)...)
	lines = append(lines, tail...)
	return dialogBox(strings.Join(lines, "\n"), inner, th)
}

// wrapText breaks s into lines of at most width cells, keeping every
// character (a command line must be shown whole, not cut).
func wrapText(s string, width int) []string {
	return strings.Split(ansi.Hardwrap(ansi.Wordwrap(s, width, " "), width, true), "\n")
}
