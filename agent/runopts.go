package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/permission"
	"github.com/harness9/harness9/tool"
)

// RunOptions adjust one Run (a custom slash command's frontmatter).
type RunOptions struct {
	// Model replaces the model name sent to the provider for this run
	// (the provider stays the engine's).
	Model string
	// AllowedTools, when given, narrows the run's tools to the calls these
	// permission rules cover ("read_file", "bash(git diff:*)"). It never
	// widens anything: every call still passes the mode's gate, the
	// permission rules and the user's approval as usual. The engine's own
	// planning tools stay available.
	AllowedTools []string
	// Origin names what set these options, for the model's refusals
	// ("the /review command").
	Origin string
	// Images are sent with the prompt (see the picture package to prepare
	// them from files). A model without vision (WithVision) refuses them
	// with ErrNoVision before anything is stored or sent.
	Images []llm.Image
}

// RunWith is Run with options for this run only.
func (e *Engine) RunWith(ctx context.Context, prompt string, o RunOptions) iter.Seq[Event] {
	restrict, err := e.restriction(o)
	if err != nil {
		return e.serve(ctx, func(context.Context, *stream) (RunStatus, error) { return RunError, err })
	}
	return e.run(ctx, prompt, runState{model: o.Model, restrict: restrict, images: o.Images})
}

// runState is what one public call's options change in its loops.
type runState struct {
	model    string
	restrict *restriction
	images   []llm.Image // the prompt's; auto-execution rounds have none
}

// restriction is a run's allowed-tools list.
type restriction struct {
	rules  *permission.Rules
	list   []permission.Rule
	origin string
}

func (e *Engine) restriction(o RunOptions) (*restriction, error) {
	if len(o.AllowedTools) == 0 {
		return nil, nil
	}
	origin := o.Origin
	if origin == "" {
		origin = "this run's allowed tools"
	}
	rs := permission.New(e.cfg.workdir)
	if err := rs.Add(permission.Allow, origin, o.AllowedTools...); err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	return &restriction{rules: rs, list: rs.List(), origin: origin}, nil
}

// restrictGate hides and refuses the user's tools a run's allowed-tools
// list does not cover.
type restrictGate struct {
	tool.Gate
	e *Engine
	r *restriction
}

func (g restrictGate) Visible(name string) bool {
	if !g.e.userTool(name) {
		return g.Gate.Visible(name)
	}
	for _, rule := range g.r.list {
		if rule.MatchesTool(name) {
			return g.Gate.Visible(name)
		}
	}
	return false
}

func (g restrictGate) Check(name string, input json.RawMessage) error {
	if t, ok := g.e.registry.Lookup(name); ok && g.e.userTool(name) {
		pc := permissionCall(t, llm.ToolCall{Name: name, Input: input})
		if g.r.rules.Decide(pc, permission.None).Action != permission.Allow {
			names := make([]string, len(g.r.list))
			for i, r := range g.r.list {
				names[i] = r.String()
			}
			return fmt.Errorf("%s allows only these calls: %s; this one is outside them. Do it with the calls allowed, or tell the user what you need",
				g.r.origin, strings.Join(names, ", "))
		}
	}
	return g.Gate.Check(name, input)
}
