package acp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/mention"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
)

// maxShownOutput caps the command output kept for display in one call's
// content (the tail is kept); what the model sees is the tool result.
const maxShownOutput = 64 << 10

// callView is what the client has been shown of one tool call.
type callView struct {
	id    sdk.ToolCallId
	title string
	kind  sdk.ToolKind
	input json.RawMessage
	diff  *sdk.ToolCallContent // the change an edit makes, when known
	out   []byte               // command output so far (its tail)
	cut   bool                 // out lost its head
}

// toolCall announces a call about to run: its kind, the files it touches,
// and for an edit the change as a diff (computed before it runs, so the
// user can review it in a permission request).
func (t *turn) toolCall(id, name string, input json.RawMessage) {
	v, u, tl := t.ss.newCall(id, name, input)
	if cp, ok := tl.(tool.ChangePreviewer); ok {
		if c, ok := cp.PreviewChange(t.ctx, input); ok {
			d := diffContent(t.ss.abs(c.Path), c)
			v.diff = &d
			u.Content = []sdk.ToolCallContent{d}
		}
	}
	t.calls[id] = v
	t.ss.update(sdk.SessionUpdate{ToolCall: u})
}

// newCall is a call's view and its tool_call update, from what its tool
// says about itself; the tool is nil when the engine has none by that
// name (a model can call anything).
func (ss *sess) newCall(id, name string, input json.RawMessage) (*callView, *sdk.SessionUpdateToolCall, tool.Tool) {
	v := &callView{id: sdk.ToolCallId(id), input: input, kind: sdk.ToolKindOther, title: name}
	u := &sdk.SessionUpdateToolCall{ToolCallId: v.id, Status: sdk.ToolCallStatusPending, RawInput: rawInput(input)}
	tl, known := ss.eng.Tool(name)
	if known {
		v.kind = sdk.ToolKind(tool.KindOf(tl))
		v.title = callTitle(name, tl, input)
		u.Locations = ss.locations(tl, input)
	}
	u.Title, u.Kind = v.title, v.kind
	return v, u, tl
}

// toolOutput streams a running command's output into its call's content.
func (t *turn) toolOutput(id, text string) {
	v := t.calls[id]
	if v == nil {
		return
	}
	v.out = append(v.out, text...)
	if len(v.out) > maxShownOutput {
		v.out, v.cut = v.out[len(v.out)-maxShownOutput:], true
	}
	shown := string(v.out)
	if v.cut {
		shown = "[… earlier output not shown]\n" + shown
	}
	t.ss.update(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: v.id,
		Status: sdk.Ptr(sdk.ToolCallStatusInProgress), Content: []sdk.ToolCallContent{fenced(shown)}}})
}

// toolResult finishes a call with its result.
func (t *turn) toolResult(r agent.ToolResult) { t.finishCall(r.ID, r.IsError, r.Output) }

// finishCall ends a call: for a successful edit whose change is known its
// diff, otherwise what the model saw.
func (t *turn) finishCall(id string, isError bool, output string) {
	v := t.calls[id]
	if v == nil {
		return
	}
	delete(t.calls, id)
	status := sdk.ToolCallStatusCompleted
	if isError {
		status = sdk.ToolCallStatusFailed
	}
	content := []sdk.ToolCallContent{fenced(output)}
	if v.diff != nil && !isError {
		content = []sdk.ToolCallContent{*v.diff}
	}
	t.ss.update(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: v.id,
		Status: sdk.Ptr(status), Content: content}})
}

// showPlan puts a submitted plan in the content of the call that
// submitted it, so it stays in the thread; a plan the engine submitted on
// the model's behalf (todos left without submit_plan) gets a call of its
// own.
func (t *turn) showPlan(p planning.Plan) {
	content := []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(planMarkdown(p)))}
	title := "Plan: " + p.Title
	if t.planCall == "" {
		t.planCall = fmt.Sprintf("plan-%s-%d", t.ss.id, t.ss.plans.Add(1))
		t.ss.update(sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{ToolCallId: sdk.ToolCallId(t.planCall),
			Title: title, Kind: sdk.ToolKindSwitchMode, Status: sdk.ToolCallStatusCompleted, Content: content}})
		return
	}
	t.ss.update(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: sdk.ToolCallId(t.planCall),
		Title: &title, Content: content}})
}

// planMarkdown is a plan as the user reads it: its content and its steps.
func planMarkdown(p planning.Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", p.Title)
	if c := strings.TrimSpace(p.Content); c != "" {
		b.WriteString(c + "\n\n")
	}
	b.WriteString("### Steps\n\n")
	for i, s := range p.Steps {
		fmt.Fprintf(&b, "%d. %s\n", i+1, s)
	}
	return b.String()
}

// fenced is text as a code block, in a fence the text cannot close.
func fenced(text string) sdk.ToolCallContent {
	text = strings.TrimRight(text, "\n")
	fence := mention.Fence([]byte(text))
	return sdk.ToolContent(sdk.TextBlock(fence + "\n" + text + "\n" + fence))
}

// diffContent is a change as the protocol's diff content.
func diffContent(path string, c tool.FileChange) sdk.ToolCallContent {
	if c.Created {
		return sdk.ToolDiffContent(path, c.New)
	}
	return sdk.ToolDiffContent(path, c.New, c.Old)
}

// rawInput is the call's arguments as JSON, or nothing when they are not
// JSON (a model can send anything).
func rawInput(input json.RawMessage) any {
	if !json.Valid(input) {
		return nil
	}
	return input
}

// abs makes a path a call names absolute (the protocol's paths are).
func (ss *sess) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(ss.eng.Workdir(), p)
}

// locations are the files a call acts on, by what its tool says (its
// scope, the files it changes).
func (ss *sess) locations(t tool.Tool, input json.RawMessage) []sdk.ToolCallLocation {
	var paths []string
	if s, ok := t.(tool.Scoped); ok {
		if p := s.Scope(input).Path; p != "" {
			paths = append(paths, p)
		}
	}
	if fc, ok := t.(tool.FileChanger); ok {
		files, _ := fc.ChangedFiles(input)
		paths = append(paths, files...)
	}
	var out []sdk.ToolCallLocation
	seen := map[string]bool{}
	for _, p := range paths {
		if a := ss.abs(p); p != "" && !seen[a] {
			seen[a] = true
			out = append(out, sdk.ToolCallLocation{Path: a})
		}
	}
	return out
}

// maxTitle caps a call's title.
const maxTitle = 120

// callTitle is the tool's name and what the call acts on: its scope (a
// command, a path, an address), else the argument that says most.
func callTitle(name string, t tool.Tool, input json.RawMessage) string {
	arg := ""
	if s, ok := t.(tool.Scoped); ok {
		sc := s.Scope(input)
		arg = firstOf(sc.Command, sc.Path, sc.URL)
	}
	if arg == "" {
		var args map[string]any
		_ = json.Unmarshal(input, &args)
		str := func(k string) string { s, _ := args[k].(string); return s }
		arg = firstOf(str("pattern"), str("path"), str("query"), str("url"), str("name"), str("title"), str("description"))
	}
	title := name
	if arg != "" {
		title += ": " + strings.Join(strings.Fields(arg), " ")
	}
	if r := []rune(title); len(r) > maxTitle {
		title = string(r[:maxTitle-1]) + "…"
	}
	return title
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
