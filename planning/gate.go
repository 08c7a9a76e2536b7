package planning

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/harness9/harness9/planning/shellgate"
	"github.com/harness9/harness9/tool"
)

// The tools planning itself provides.
const (
	TodoWriteName  = "todo_write"
	SubmitPlanName = "submit_plan"
)

// planAllowlist is what every Plan-Mode run may use besides the tools the
// caller names by their properties (WithReadOnlyTools, WithShellTools): the
// todo list and submit_plan.
var planAllowlist = []string{TodoWriteName, SubmitPlanName}

// GateFor returns the tool gate of a mode, with readOnlyTools allowed while
// planning. It is NewGate(mode, WithReadOnlyTools(readOnlyTools...)).
func GateFor(mode Mode, readOnlyTools ...string) tool.Gate {
	return NewGate(mode, WithReadOnlyTools(readOnlyTools...))
}

// GateOption configures NewGate.
type GateOption func(*modeGate)

// WithReadOnlyTools allows tools that change nothing (tool.ReadOnly) while
// planning: the file readers, skills, read-only MCP tools.
func WithReadOnlyTools(names ...string) GateOption {
	return func(g *modeGate) { g.extra = append(g.extra, names...) }
}

// WithShellTools allows, while planning, tools that take a shell command in
// a "command" field and can run it read-only (tool.ReadOnlyCapable: bash in
// the kernel sandbox). Each command must also pass shellgate.Check, the
// early and friendly refusal of obvious writers; the sandbox is the
// boundary.
func WithShellTools(names ...string) GateOption {
	return func(g *modeGate) {
		if g.shell == nil {
			g.shell = map[string]bool{}
		}
		for _, n := range names {
			g.shell[n] = true
			g.extra = append(g.extra, n)
		}
	}
}

// WithGateOnlyShellTools names the shell tools (among WithShellTools) that
// no kernel sandbox confines on this system (tool.GateOnly): the gate is
// all that guards their commands, so it also refuses what it otherwise
// leaves to the kernel (shellgate.WithoutKernelSandbox).
func WithGateOnlyShellTools(names ...string) GateOption {
	return func(g *modeGate) {
		if g.gateOnly == nil {
			g.gateOnly = map[string]bool{}
		}
		for _, n := range names {
			g.gateOnly[n] = true
		}
	}
}

// WithWorkspace sandboxes what bash may read in Plan Mode: every path a
// command reads must resolve inside ws and outside its deny list, as for the
// file tools (shellgate.WithWorkspace). A nil ws turns the sandbox off.
func WithWorkspace(ws *tool.Workspace) GateOption {
	return func(g *modeGate) { g.ws = ws }
}

// NewGate returns the tool gate of a mode. It is enforced twice by the
// Registry: Visible decides which definitions the model is sent, Check
// refuses a call to anything else — a model can name a tool it saw earlier in
// the history, and the prompt is never what keeps Plan Mode read-only.
//
// In Plan Mode the allowlist is todo_write and submit_plan plus
// WithReadOnlyTools and WithShellTools, and a shell tool runs only commands
// shellgate.Check accepts: read-only, and reading only inside the
// WithWorkspace sandbox when one is given. In every other
// mode every tool is allowed except submit_plan, which only means something
// while planning.
func NewGate(mode Mode, opts ...GateOption) tool.Gate {
	g := &modeGate{mode: mode, policy: PolicyFor(mode)}
	for _, o := range opts {
		o(g)
	}
	if g.policy.ReadOnly {
		g.allowed = make(map[string]bool, len(planAllowlist)+len(g.extra))
		for _, n := range planAllowlist {
			g.allowed[n] = true
		}
		for _, n := range g.extra {
			g.allowed[n] = true
		}
	}
	return g
}

type modeGate struct {
	mode   Mode
	policy Policy
	extra  []string        // WithReadOnlyTools, WithShellTools
	shell  map[string]bool // WithShellTools
	// gateOnly are the shell tools no kernel sandbox confines
	// (WithGateOnlyShellTools).
	gateOnly map[string]bool
	ws       *tool.Workspace // WithWorkspace; nil: bash paths are not sandboxed
	allowed  map[string]bool // read-only modes only
}

func (g *modeGate) Visible(name string) bool {
	if g.policy.ReadOnly {
		return g.allowed[name] && (name != SubmitPlanName || g.policy.Plans)
	}
	return name != SubmitPlanName || g.policy.Plans
}

func (g *modeGate) Check(name string, input json.RawMessage) error {
	if !g.Visible(name) {
		if name == SubmitPlanName {
			return fmt.Errorf("submit_plan is only available in Plan Mode, and this run is not planning. " +
				"Carry out the task directly, tracking the steps with todo_write")
		}
		return fmt.Errorf("%s is not available in Plan Mode: nothing may change until the user approves a plan. "+
			"Explore with %s, then call submit_plan with a title, content and steps; the changes are made after the user approves",
			name, strings.Join(g.readTools(), ", "))
	}
	if g.policy.ReadOnly && g.shell[name] {
		command, err := bashCommand(input)
		if err == nil {
			opts := []shellgate.Option{shellgate.WithWorkspace(g.ws)}
			if g.gateOnly[name] {
				opts = append(opts, shellgate.WithoutKernelSandbox())
			}
			err = shellgate.Check(command, opts...)
		}
		var ce *shellgate.CommandError
		if errors.As(err, &ce) && ce.Path != "" {
			return fmt.Errorf("Plan Mode's bash may only read inside the workspace; refused %w. "+
				"Give paths relative to the workspace root (%s), or explore with read_file, list_files "+
				"and search_files, which work inside the workspace too", err, g.ws.Root())
		}
		if err != nil {
			return fmt.Errorf("Plan Mode runs only read-only bash commands; refused %w. "+
				"Explore with read_file, list_files, search_files, glob or a read-only command instead; "+
				"to make changes, call submit_plan so the user can approve the plan first", err)
		}
	}
	return nil
}

// readTools lists the Plan-Mode tools a refusal suggests, sorted.
func (g *modeGate) readTools() []string {
	var names []string
	for n := range g.allowed {
		if n != SubmitPlanName && n != TodoWriteName {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// bashCommand extracts the command of a bash call. It refuses input with
// more than one key that encoding/json would map onto "command" (keys match
// case-insensitively and the last one wins), so the gate and the tool can
// never disagree about which command runs.
func bashCommand(input json.RawMessage) (string, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(input, &fields); err != nil {
		return "", &shellgate.CommandError{Reason: "the bash arguments are not a JSON object with a \"command\" string"}
	}
	var raw json.RawMessage
	n := 0
	for k, v := range fields {
		if strings.EqualFold(k, "command") {
			raw, n = v, n+1
		}
	}
	if n != 1 {
		return "", &shellgate.CommandError{Reason: "the bash arguments must contain exactly one \"command\" field"}
	}
	var command string
	if err := json.Unmarshal(raw, &command); err != nil {
		return "", &shellgate.CommandError{Reason: "\"command\" must be a string"}
	}
	return command, nil
}
