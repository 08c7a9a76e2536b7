package acp

import (
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/termtext"
	"github.com/harness9/harness9/planning"
)

// reviewOptions are the plan review's four choices, numbered and worded
// as in the TUI; an option's id is the choice's stable name.
var reviewOptions = []struct {
	choice planning.ReviewChoice
	name   string
	kind   sdk.PermissionOptionKind
}{
	{planning.ReviewApprove, "Approve and auto-execute", sdk.PermissionOptionKindAllowAlways},
	{planning.ReviewApproveConfirm, "Approve, and confirm each edit", sdk.PermissionOptionKindAllowOnce},
	{planning.ReviewRefine, "Keep planning (say what to change in your next message)", sdk.PermissionOptionKindRejectOnce},
	{planning.ReviewCancel, "Cancel the plan", sdk.PermissionOptionKindRejectAlways},
}

// askReview shows the plan in a permission request whose options are the
// review's choices. ok is false when the request was cancelled or failed:
// the plan then stays awaiting review, as when the TUI's dialog is closed.
func (t *turn) askReview(p planning.Plan) (planning.ReviewChoice, bool) {
	opts := make([]sdk.PermissionOption, len(reviewOptions))
	for i, o := range reviewOptions {
		opts[i] = sdk.PermissionOption{OptionId: sdk.PermissionOptionId(o.choice.String()), Name: o.name, Kind: o.kind}
	}
	title := "Review the plan: " + p.Title
	req := sdk.RequestPermissionRequest{SessionId: t.ss.id, Options: opts, ToolCall: sdk.ToolCallUpdate{
		ToolCallId: sdk.ToolCallId(t.planCall), Title: &title, Kind: sdk.Ptr(sdk.ToolKindSwitchMode),
		Status:  sdk.Ptr(sdk.ToolCallStatusPending),
		Content: []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(planMarkdown(p)))},
	}}
	resp, err := t.ss.srv.conn.RequestPermission(t.ctx, req)
	if err != nil {
		t.ss.srv.log.Warn("acp: the plan review request failed", "session", t.ss.id, "err", err)
		return 0, false
	}
	if resp.Outcome.Selected == nil {
		return 0, false
	}
	for _, o := range reviewOptions {
		if string(resp.Outcome.Selected.OptionId) == o.choice.String() {
			return o.choice, true
		}
	}
	t.ss.srv.log.Warn("acp: the client chose an option the plan review did not offer", "option", resp.Outcome.Selected.OptionId)
	return 0, false
}

// The permission options of a call the mode or a rule puts to the user.
const (
	optAllowOnce   = "allow_once"
	optAllowAlways = "allow_always"
	optReject      = "reject"
)

// askPermission puts a call to the user: allow once, allow always
// (for good in this project when a rule narrower than the whole tool
// covers the call — the rule the TUI stores —, else for this session),
// or reject. The answer goes back to the engine, which applies it.
func (t *turn) askPermission(req *agent.ApprovalRequest) {
	v := t.calls[req.Call.ID]
	if v == nil {
		v = t.findNested(req.Call.ID)
	}
	if v == nil {
		t.toolCall(req.Call.ID, req.Call.Name, req.Call.Input)
		v = t.calls[req.Call.ID]
	}
	always := "Allow for this session"
	if len(req.Rules) > 0 {
		// A rule quotes the model's command: shown, never obeyed.
		always = "Always allow in this project: " + termtext.Clean(strings.Join(req.Rules, ", "))
	}
	why := "Asked because " + req.Why + "."
	content := []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(why))}
	if v.diff != nil {
		content = append([]sdk.ToolCallContent{*v.diff}, content...)
	} else {
		content = append([]sdk.ToolCallContent{fenced(req.Preview)}, content...)
	}
	title := v.title
	resp, err := t.ss.srv.conn.RequestPermission(t.ctx, sdk.RequestPermissionRequest{
		SessionId: t.ss.id,
		ToolCall: sdk.ToolCallUpdate{ToolCallId: v.id, Title: &title, Kind: &v.kind,
			Status: sdk.Ptr(sdk.ToolCallStatusPending), Content: content, RawInput: rawInput(v.input)},
		Options: []sdk.PermissionOption{
			{OptionId: optAllowOnce, Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce},
			{OptionId: optAllowAlways, Name: always, Kind: sdk.PermissionOptionKindAllowAlways},
			{OptionId: optReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
		},
	})
	switch {
	case err != nil:
		req.Respond(agent.Deny, fmt.Sprintf("the user could not be asked (%v)", err))
	case resp.Outcome.Selected == nil:
		req.Respond(agent.Deny, "the user cancelled the turn instead of answering")
	default:
		switch resp.Outcome.Selected.OptionId {
		case optAllowOnce:
			req.Respond(agent.AllowOnce, "")
		case optAllowAlways:
			if len(req.Rules) > 0 {
				req.Respond(agent.AllowProject, "")
			} else {
				req.Respond(agent.AllowSession, "")
			}
		default:
			req.Respond(agent.Deny, "the user rejected this call")
		}
	}
}

// findNested returns the view of a sub-agent's call by its own id.
func (t *turn) findNested(id string) *callView {
	for k, v := range t.calls {
		if strings.HasSuffix(k, "/"+id) {
			return v
		}
	}
	return nil
}
