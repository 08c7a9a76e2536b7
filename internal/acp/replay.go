package acp

import (
	"context"
	"encoding/base64"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
)

// replay sends a loaded session's history as session/update
// notifications: the user's prompts, the agent's replies and thinking,
// and every tool call with its result (a call without one was
// interrupted).
func (ss *sess) replay(ctx context.Context) {
	t := &turn{ss: ss, ctx: ctx, calls: map[string]*callView{}}
	for _, m := range ss.eng.History() {
		switch m.Role {
		case llm.RoleUser:
			// A Plan-mode prompt is stored with the planning instructions
			// before it; the user wrote what follows them.
			text := strings.TrimPrefix(m.Content, planning.PlanModePrefix)
			if strings.TrimSpace(text) != "" {
				ss.update(sdk.UpdateUserMessageText(text))
			}
			for _, im := range m.Images {
				ss.update(sdk.UpdateUserMessage(sdk.ImageBlock(base64.StdEncoding.EncodeToString(im.Data), im.MediaType)))
			}
		case llm.RoleAssistant:
			if strings.TrimSpace(m.Reasoning) != "" {
				ss.update(sdk.UpdateAgentThoughtText(m.Reasoning))
			}
			if strings.TrimSpace(m.Content) != "" {
				ss.update(sdk.UpdateAgentMessageText(m.Content))
			}
			for _, c := range m.ToolCalls {
				// The change a past edit made is not recomputed from
				// today's files: its result shows it.
				t.replayCall(c)
			}
		case llm.RoleTool:
			t.finishCall(m.ToolCallID, m.IsError, m.Content)
		}
	}
	for _, v := range t.calls {
		ss.update(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: v.id,
			Status: sdk.Ptr(sdk.ToolCallStatusFailed), Content: []sdk.ToolCallContent{fenced("interrupted: no result was recorded")}}})
	}
}

// replayCall announces a past call as it was made.
func (t *turn) replayCall(c llm.ToolCall) {
	v, u, _ := t.ss.newCall(c.ID, c.Name, c.Input)
	t.calls[c.ID] = v
	t.ss.update(sdk.SessionUpdate{ToolCall: u})
}
