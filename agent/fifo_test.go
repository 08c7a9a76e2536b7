//go:build unix

package agent_test

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
)

// The AutoEdit preview of an edit_file call reads the file to show a diff;
// for a named pipe that read would block forever, before the user is even
// asked. The preview falls back to the plain old/new diff instead.
func TestEditPreviewOfANamedPipeDoesNotBlock(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(scripted.Call("edit_file", map[string]any{"path": "pipe", "old_string": "a", "new_string": "b"}))},
		scripted.Turn{Text: "done", Match: scripted.LastToolResultContains("")},
	)
	if err := syscall.Mkfifo(filepath.Join(h.dir, "pipe"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	eng := h.engine(agent.WithMode(planning.ModeAutoEdit))
	asked := make(chan string, 1)
	go func() {
		for ev := range eng.Run(context.Background(), "edit the pipe") {
			if req, ok := ev.(*agent.ApprovalRequest); ok {
				asked <- req.Preview
				req.Respond(agent.Deny, "no")
			}
		}
	}()
	select {
	case p := <-asked:
		if !strings.Contains(p, "-a") || !strings.Contains(p, "+b") {
			t.Errorf("preview = %q", p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the edit preview blocked on a named pipe")
	}
}
