package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
)

// command is one slash command.
type command struct {
	name, args, help string
	// run carries the command out; arg is the text after the name.
	run func(m *model, arg string) tea.Cmd
	// idle commands refuse to run while a turn is running.
	idle bool
}

// commands is in the order /help lists them. It is filled in init to break
// the initialisation cycle through (*model).runSlash.
var commands []command

func init() {
	commands = []command{
		{name: "/new", help: "start a new session", run: (*model).cmdNew, idle: true},
		{name: "/resume", args: "[id]", help: "resume a session of this workdir", run: (*model).cmdResume, idle: true},
		{name: "/plan", args: "[task]", help: "switch to Plan Mode (and plan the task)", run: (*model).cmdPlan},
		{name: "/code", help: "leave Plan Mode without approving", run: (*model).cmdCode},
		{name: "/review", help: "reopen the review dialog of the plan awaiting approval", run: (*model).cmdReview, idle: true},
		{name: "/continue", help: "resume auto-execution of the approved plan", run: (*model).cmdContinue, idle: true},
		{name: "/compact", help: "summarise older history now", run: (*model).cmdCompact, idle: true},
		{name: "/undo", help: "put the files back to before the agent's last turn", run: (*model).cmdUndo, idle: true},
		{name: "/rewind", help: "pick an earlier turn and put the files back to before it", run: (*model).cmdRewind, idle: true},
		{name: "/memory", help: "show the memory files in use and their notes (# note adds one)", run: (*model).cmdMemory},
		{name: "/todos", help: "show the todo list", run: (*model).cmdTodos},
		{name: "/model", args: "[name]", help: "switch the model (a picker without a name)", run: (*model).cmdModel, idle: true},
		{name: "/effort", args: "[low|medium|high|default]", help: "set the model's reasoning effort (show it without an argument)", run: (*model).cmdEffort, idle: true},
		{name: "/skills", help: "list the skills found", run: (*model).cmdSkills},
		{name: "/mcp", help: "show MCP servers", run: (*model).cmdMCP},
		{name: "/help", help: "show commands and keys", run: (*model).cmdHelp},
		{name: "/exit", help: "quit", run: func(m *model, _ string) tea.Cmd { return m.quit() }},
	}
}

// BuiltinCommands are the names of the built-in commands ("/help" …): a
// custom command of the same name is never used.
func BuiltinCommands() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return names
}

// findCommand returns the built-in command called name, or nil.
func findCommand(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// menu is every command the / menu, Tab and /help offer: the built-ins,
// then the custom commands (sent as prompts, so they have no run).
func (m *model) menu() []command {
	if len(m.opts.Commands) == 0 {
		return commands
	}
	all := append([]command(nil), commands...)
	for _, c := range m.opts.Commands {
		if findCommand(c.Name) == nil {
			all = append(all, command{name: c.Name, args: c.Args, help: c.Help})
		}
	}
	return all
}

// isCustom reports whether name is a custom command's.
func (m *model) isCustom(name string) bool {
	for _, c := range m.opts.Commands {
		if c.Name == name && findCommand(name) == nil {
			return true
		}
	}
	return false
}

// runSlash dispatches a line starting with a known command's name. An
// unknown one gets a one-line hint and nothing reaches the model.
func (m *model) runSlash(line string) tea.Cmd {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	c := findCommand(name)
	if c == nil {
		m.hint = fmt.Sprintf("unknown command %s — type /help for the list (nothing was sent)", name)
		return nil
	}
	if c.idle && m.running {
		m.hint = c.name + " is not available while a turn is running (Esc interrupts it)"
		return nil
	}
	return c.run(m, arg)
}

func (m *model) cmdNew(string) tea.Cmd {
	return m.openEngine("", true)
}

func (m *model) cmdResume(arg string) tea.Cmd {
	if arg != "" {
		return m.openEngine(arg, true)
	}
	if m.opts.Sessions == nil {
		m.hint = "resuming is not available here"
		return nil
	}
	list := m.opts.Sessions
	return func() tea.Msg {
		s, err := list()
		return sessionsMsg{list: s, err: err}
	}
}

// cmdModel switches the model for the following turns; the session goes
// on with its history.
func (m *model) cmdModel(arg string) tea.Cmd {
	if m.opts.Models == nil || m.opts.SetModel == nil {
		m.hint = "switching models is not available here"
		return nil
	}
	if arg != "" {
		return m.switchModel(arg)
	}
	items := m.opts.Models()
	if len(items) == 0 {
		m.note("No models to offer: set a provider's key, or list models under [providers.NAME] models in config.toml.")
		return nil
	}
	return m.openPicker(&modelPicker{items: items, current: m.opts.ModelLabel}, func(m *model, name string) tea.Cmd { return m.switchModel(name) })
}

// switchModel makes name the model and reopens the session on it.
func (m *model) switchModel(name string) tea.Cmd {
	if err := m.opts.SetModel(name); err != nil {
		m.errorLine("Cannot switch to " + name + ": " + err.Error())
		return nil
	}
	m.opts.ModelLabel = name
	return m.reopen("Model: " + name + " — the session goes on with its history.")
}

// reopen opens the session again on the engine settings just changed
// (/model, /effort), keeping the transcript and the totals; a session
// with no history yet is opened afresh, as nothing of it is stored.
func (m *model) reopen(note string) tea.Cmd {
	if m.eng == nil {
		return m.openEngine("", true)
	}
	want := engineReadyMsg{id: m.sessionID, keep: true, reopened: note}
	if len(m.eng.History()) == 0 {
		want.id, want.reopened = "", ""
	}
	return m.openEngineWith(want)
}

// cmdEffort sets the reasoning effort of the following turns (OpenAI's
// reasoning_effort, an Anthropic thinking budget); the session goes on
// with its history, as after /model.
func (m *model) cmdEffort(arg string) tea.Cmd {
	if m.opts.SetEffort == nil {
		m.hint = "setting the reasoning effort is not available here"
		return nil
	}
	if arg == "" {
		m.note("Reasoning effort: " + effortLabel(m.opts.Effort) + ". /effort low, medium, high or default changes it.")
		return nil
	}
	e, err := llm.ParseEffort(arg)
	if err != nil {
		m.errorLine("Cannot set the reasoning effort: " + err.Error())
		return nil
	}
	m.opts.SetEffort(e)
	m.opts.Effort = e
	m.note("Reasoning effort: " + effortLabel(e) + ", from the next turn.")
	return m.reopen("")
}

// effortLabel names an effort for the user.
func effortLabel(e llm.Effort) string {
	if e == llm.EffortDefault {
		return "the provider's default"
	}
	return string(e)
}

func (m *model) cmdPlan(arg string) tea.Cmd {
	m.setMode(planning.ModePlan)
	switch {
	case arg == "" && m.running:
		m.hint = "Plan Mode applies to the next turn; the running one keeps its mode"
	case arg == "":
		m.note("Plan Mode: the agent explores read-only and submits a plan for your review.")
	case m.running:
		m.queue = append(m.queue, arg)
		m.hint = "queued — planned in Plan Mode when the running turn ends (Esc interrupts it)"
		m.layout()
	default:
		return m.send(arg)
	}
	return nil
}

func (m *model) cmdReview(string) tea.Cmd {
	if m.eng != nil && m.eng.NextStep() == planning.StepReview {
		m.plan = m.eng.Plan()
	}
	if m.plan == nil {
		m.hint = "no plan is waiting for approval"
		return nil
	}
	return m.openReview("")
}

func (m *model) cmdCode(string) tea.Cmd {
	m.setMode(planning.ModeDefault)
	if m.running {
		m.hint = "Default mode applies to the next turn; the running one keeps its mode"
		return nil
	}
	m.note("Default mode: the agent may edit files.")
	return nil
}

func (m *model) cmdContinue(string) tea.Cmd {
	if m.eng == nil {
		return nil
	}
	return m.startStream(m.eng.Continue)
}

func (m *model) cmdCompact(string) tea.Cmd {
	if m.eng == nil {
		return nil
	}
	m.note("compacting history…")
	return m.startStream(m.eng.Compact)
}

func (m *model) cmdTodos(string) tea.Cmd {
	if len(m.todos) == 0 {
		m.note("The todo list is empty.")
		return nil
	}
	m.tr.add(&block{kind: blockTodos, todos: m.todos})
	return nil
}

func (m *model) cmdSkills(string) tea.Cmd {
	m.listing("Skills", m.opts.SkillsList, "No skills found ("+tool.DataDirName+"/skills/<name>/SKILL.md).")
	return nil
}

func (m *model) cmdMCP(string) tea.Cmd {
	m.listing("MCP servers", m.opts.MCPStatus, "No MCP servers configured.")
	return nil
}

func (m *model) listing(title string, fn func() []string, empty string) {
	var lines []string
	if fn != nil {
		lines = fn()
	}
	if len(lines) == 0 {
		m.note(empty)
		return
	}
	m.note(title + ":\n  " + strings.Join(lines, "\n  "))
}

func (m *model) cmdHelp(string) tea.Cmd {
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, c := range m.menu() {
		fmt.Fprintf(&b, "  %-18s %s\n", strings.TrimSpace(c.name+" "+c.args), c.help)
	}
	b.WriteString("Keys:\n")
	b.WriteString("  Enter send (queued while the agent works) · Shift+Enter, Ctrl+J or \\ then Enter: newline · Tab complete\n")
	b.WriteString("  ↑/↓ history · Ctrl+R search the history · @path attach a file · Shift+Tab cycle mode (applies to the next turn)\n")
	b.WriteString("  Ctrl+O the newest tool call's whole output (←/→ other calls, / search, n/N, g/G, q closes) · Ctrl+T the whole transcript\n")
	b.WriteString("  Esc interrupts the running turn (queued messages go next) · Ctrl+C: closes a dialog, else clears the draft\n")
	b.WriteString("  (it stays in the history), else cancels the turn; twice in a row quits\n")
	if m.inline() {
		b.WriteString("  The conversation is in your terminal's scrollback: scroll, search and select it there\n")
	} else {
		b.WriteString("  PgUp/PgDn/wheel scroll · End follows\n")
	}
	b.WriteString("Images: @shot.png (or a pasted image path) in a prompt attaches the picture\n")
	b.WriteString("Dialogs: digits or ↑/↓ + Enter choose; typed text goes into the note/reason field, never picks an option;\n")
	b.WriteString("  a question takes no key for half a second after it appears (what you typed goes to the editor);\n")
	b.WriteString("  a permission question starts with nothing picked; Esc closes the plan review and keeps the plan (/review reopens it)")
	m.note(b.String())
	return nil
}
