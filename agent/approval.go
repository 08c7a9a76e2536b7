package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
)

// previewMax caps the content shown in a write_file preview, in bytes.
const previewMax = 4000

// previewReadMax is the largest file an edit preview reads for its diff.
const previewReadMax = 1 << 20

// needsApproval reports whether call must wait for the user: AutoEdit mode
// and a write/edit/bash tool, or Default mode and a tool the sandbox cannot
// contain; not yet allowed for the session. Calls the
// registry will refuse anyway (unknown tool, gate, malformed JSON) are not
// put to the user.
func (l *turnLoop) needsApproval(call llm.ToolCall) bool {
	t, ok := l.e.registry.Lookup(call.Name)
	if !ok || !json.Valid(call.Input) {
		return false
	}
	if !planning.NeedsApproval(l.mode, call.Name) && !uncontained(l.mode, t) {
		return false
	}
	if l.gate != nil && l.gate.Check(call.Name, call.Input) != nil {
		return false
	}
	l.e.mu.Lock()
	defer l.e.mu.Unlock()
	return !l.e.allowed[call.Name]
}

// uncontained reports whether t must be asked about in Default mode
// because the harness cannot bound its effects: bash without the kernel
// sandbox.
func uncontained(mode planning.Mode, t tool.Tool) bool {
	c, ok := t.(tool.Contained)
	return mode == planning.ModeDefault && ok && !c.Contained()
}

// askUser emits an ApprovalRequest and blocks until the consumer answers or
// the run ends. ok is false when the call must not run; res is then the
// result the model sees.
func (l *turnLoop) askUser(ctx context.Context, call llm.ToolCall) (res tool.Result, ok bool) {
	req := &ApprovalRequest{Call: call, Preview: l.e.preview(call), reply: make(chan approvalReply, 1)}
	cancelled := tool.Errorf("%s was cancelled while waiting for the user's approval", call.Name)
	if !l.s.emit(req) {
		return cancelled, false
	}
	select {
	case <-ctx.Done():
		return cancelled, false
	case r := <-req.reply:
		switch r.decision {
		case AllowOnce:
			return tool.Result{}, true
		case AllowSession:
			l.e.mu.Lock()
			l.e.allowed[call.Name] = true
			l.e.mu.Unlock()
			return tool.Result{}, true
		}
		reason := strings.TrimSpace(r.reason)
		if reason == "" {
			reason = "no reason given"
		}
		return tool.Errorf("the user denied this call: %s", reason), false
	}
}

// preview renders what the user approves: a unified diff for edit_file,
// the path and the head of the content for write_file, the command for
// bash, the raw arguments otherwise.
func (e *Engine) preview(call llm.ToolCall) string {
	var in struct {
		Path       string `json:"path"`
		Content    string `json:"content"`
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
		Command    string `json:"command"`
	}
	_ = json.Unmarshal(call.Input, &in)
	switch call.Name {
	case "bash":
		return "$ " + in.Command
	case "write_file":
		content := in.Content
		if len(content) > previewMax {
			content = content[:previewMax] + fmt.Sprintf("\n[... %d more bytes]", len(in.Content)-previewMax)
		}
		return fmt.Sprintf("write %s (%d bytes)\n%s", in.Path, len(in.Content), content)
	case "edit_file":
		old, ok := e.readForPreview(in.Path)
		if ok && strings.Contains(old, in.OldString) && in.OldString != "" {
			n := 1
			if in.ReplaceAll {
				n = -1
			}
			return udiff.Unified("a/"+in.Path, "b/"+in.Path, old, strings.Replace(old, in.OldString, in.NewString, n))
		}
		return udiff.Unified("a/"+in.Path, "b/"+in.Path, in.OldString, in.NewString)
	}
	return string(call.Input)
}

// readForPreview reads a file for an edit preview, through the same sandbox
// the file tools use, so a preview never shows a file the tool could not
// touch.
func (e *Engine) readForPreview(path string) (string, bool) {
	if e.ws == nil {
		return "", false
	}
	// Workspace.ReadFile refuses a named pipe before opening it (it would
	// block before the user is even asked) and stops at previewReadMax.
	b, truncated, err := e.ws.ReadFile(path, previewReadMax)
	if err != nil || truncated {
		return "", false
	}
	return string(b), true
}
