//go:build !unix

package builtin

import (
	"context"
	"encoding/json"
	"time"

	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/tool"
)

// BashInput is the input of bash.
type BashInput struct {
	Command     string `json:"command" jsonschema:"shell command"`
	TimeoutSecs int    `json:"timeout_secs,omitempty" jsonschema:"time limit in seconds (default 120, max 600)"`
}

// Bash is the bash tool; on this platform it only reports that it is not
// supported.
type Bash struct{ tool.Spec }

// BashOption configures the bash tool.
type BashOption func(*Bash)

// WithMaxOutput caps the output kept from a command (unused here).
func WithMaxOutput(int) BashOption { return func(*Bash) {} }

// WithKillGrace sets the SIGTERM to SIGKILL delay (unused here).
func WithKillGrace(time.Duration) BashOption { return func(*Bash) {} }

// WithBaseEnv sets the commands' environment (unused here).
func WithBaseEnv([]string) BashOption { return func(*Bash) {} }

// WithHiddenEnv names variables kept from commands (unused here).
func WithHiddenEnv(...string) BashOption { return func(*Bash) {} }

// WithSandbox confines commands (unused here: there is no kernel sandbox).
func WithSandbox(*sandbox.Sandbox) BashOption { return func(*Bash) {} }

// WithUnconfinedReadOnly lets Plan Mode run unconfined commands behind the
// parse gate (unused here).
func WithUnconfinedReadOnly(bool) BashOption { return func(*Bash) {} }

// NewBash returns the bash tool.
func NewBash(*tool.Workspace, ...BashOption) *Bash {
	return &Bash{Spec: tool.NewSpec[BashInput]("bash", "Runs a shell command (not supported on this platform).")}
}

// Execute implements tool.Tool.
func (b *Bash) Execute(context.Context, json.RawMessage) (tool.Result, error) {
	return tool.Errorf("bash is not supported on this platform"), nil
}
