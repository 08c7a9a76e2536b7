package hook

import (
	"context"
	"testing"

	"github.com/harness9/harness9/sandbox"
)

// BenchmarkHook is the cost one `true` hook adds to a tool call, confined
// and not.
func BenchmarkHook(b *testing.B) {
	dir := b.TempDir()
	hooks := []Hook{{Event: PreToolUse, Command: "true"}}
	ev := Event{Name: PreToolUse, ToolName: "write_file"}
	b.Run("unconfined", func(b *testing.B) {
		r, _ := New(dir, hooks, WithUnconfined(true))
		for b.Loop() {
			r.Run(context.Background(), ev)
		}
	})
	b.Run("sandboxed", func(b *testing.B) {
		if s := sandbox.Probe(); !s.Available {
			b.Skip(s.Reason)
		}
		sb, err := sandbox.New(dir)
		if err != nil {
			b.Fatal(err)
		}
		r, _ := New(dir, hooks, WithSandbox(sb))
		for b.Loop() {
			r.Run(context.Background(), ev)
		}
	})
}
