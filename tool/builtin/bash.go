//go:build unix

package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/tool"
)

//go:embed bash.md
var bashDescription string

const (
	bashDefaultTimeout = 120 * time.Second
	bashMaxTimeout     = 600 * time.Second
	bashDefaultOutput  = 30 << 10
	bashDefaultGrace   = 2 * time.Second
	// bashPipeWait bounds how long output is still collected after the
	// shell has exited, when a background process keeps the pipe open.
	bashPipeWait = 500 * time.Millisecond
)

// BashInput is the input of bash.
type BashInput struct {
	Command     string `json:"command" jsonschema:"shell command, run with bash -c in the workspace root"`
	TimeoutSecs int    `json:"timeout_secs,omitempty" jsonschema:"time limit in seconds (default 120, max 600)"`
}

// Bash is the bash tool. Each call runs in a session of its own, confined
// by the kernel sandbox when one is given (WithSandbox): the policy comes
// from the call's context (sandbox.ContextWithPolicy; WorkspaceWrite when
// none is set). Whatever the command leaves running is killed when the call
// returns, and a timeout or a cancellation kills everything it started.
type Bash struct {
	tool.Spec
	ws        *tool.Workspace
	sb        *sandbox.Sandbox
	gateOnly  bool
	shell     string
	maxOutput int
	grace     time.Duration
	hideEnv   map[string]bool
	baseEnv   []string
}

// WithBaseEnv is the environment commands start from, before secrets and
// hidden variables are removed and the sandbox rebuilds what its policy
// needs. Without it commands get only PATH (sandbox.BaseEnv): the tool never
// passes the process's environment on by itself; a program that wants its
// commands to see it (go, npm, a virtualenv) passes the process environment.
func WithBaseEnv(env []string) BashOption {
	return func(b *Bash) { b.baseEnv = env }
}

// WithHiddenEnv removes more variables (e.g. configured providers'
// api_key_env) from the environment of commands run without a sandbox;
// secret-looking names (sandbox.IsSecretName) are always removed. A
// sandbox's own WithHideEnv applies to confined commands.
func WithHiddenEnv(names ...string) BashOption {
	return func(b *Bash) {
		for _, n := range names {
			if n != "" {
				b.hideEnv[n] = true
			}
		}
	}
}

// WithSandbox confines every command with sb. When sb cannot confine on
// this system (sb.Support), commands asked to be read-only are refused
// unless WithUnconfinedReadOnly, and the tool reports itself as not
// contained (Contained) so callers can ask before each command.
func WithSandbox(sb *sandbox.Sandbox) BashOption {
	return func(b *Bash) { b.sb = sb }
}

// WithUnconfinedReadOnly lets commands asked to be read-only (Plan Mode)
// run without the kernel sandbox, guarded only by the caller's parse gate.
// It is an explicit opt-in for systems without Landlock: a parser is not a
// boundary.
func WithUnconfinedReadOnly(allow bool) BashOption {
	return func(b *Bash) { b.gateOnly = allow }
}

// BashOption configures the bash tool.
type BashOption func(*Bash)

// WithMaxOutput caps, in bytes, the output kept from a command; the head and
// the tail are kept. The default is 30 KiB.
func WithMaxOutput(n int) BashOption {
	return func(b *Bash) {
		if n > 0 {
			b.maxOutput = n
		}
	}
}

// WithKillGrace sets how long a timed-out or cancelled command has between
// SIGTERM and SIGKILL. The default is 2s.
func WithKillGrace(d time.Duration) BashOption {
	return func(b *Bash) {
		if d >= 0 {
			b.grace = d
		}
	}
}

// NewBash returns the bash tool. It runs commands with bash, or sh where
// bash is not installed.
func NewBash(ws *tool.Workspace, opts ...BashOption) *Bash {
	b := &Bash{
		Spec:      tool.NewSpec[BashInput]("bash", bashDescription),
		ws:        ws,
		shell:     "sh",
		maxOutput: bashDefaultOutput,
		grace:     bashDefaultGrace,
		hideEnv:   map[string]bool{},
	}
	for _, n := range sandbox.ShellStartupEnv {
		b.hideEnv[n] = true
	}
	if p, err := exec.LookPath("bash"); err == nil {
		b.shell = p
	}
	for _, o := range opts {
		o(b)
	}
	return b
}

// Contained reports whether the kernel sandbox bounds what this tool's
// commands can do outside Plan Mode: write only the workdir and reach no
// network. With the network allowed ([sandbox] network) they could send the
// workdir anywhere, so they are not contained.
func (b *Bash) Contained() bool { return b.confined() && !b.sb.Network() }

// UncontainedReason implements tool.Uncontained: "" when Contained.
func (b *Bash) UncontainedReason() string {
	switch {
	case b.sb == nil:
		return "the kernel sandbox is turned off, so nothing bounds what this command changes"
	case !b.sb.Support().Available:
		return "the kernel sandbox is not available on this system, so nothing bounds what this command changes"
	case b.sb.Network():
		return "the sandbox lets commands reach the network, so this command could send the workdir's files anywhere"
	}
	return ""
}

// CanRunReadOnly reports whether the tool can honour a read-only context:
// confined by the sandbox (whose read-only policy never has the network),
// or explicitly allowed to rely on a parse gate.
func (b *Bash) CanRunReadOnly() bool { return b.confined() || b.gateOnly }

// GateOnly reports whether a parse gate alone guards this tool's read-only
// calls: no kernel sandbox confines them here, and the user opted into
// running them anyway (WithUnconfinedReadOnly). The Plan-Mode gate then
// also refuses what only the kernel would have stopped.
func (b *Bash) GateOnly() bool { return !b.confined() && b.gateOnly }

// confined reports whether commands run in the kernel sandbox.
func (b *Bash) confined() bool { return b.sb != nil && b.sb.Support().Available }

// Timeout implements tool.TimeoutOverride: the command's own limit plus the
// time it takes to kill it, so the Registry does not cut it short.
func (b *Bash) Timeout(input json.RawMessage) time.Duration {
	in, err := tool.Decode[BashInput](input)
	if err != nil {
		return 0
	}
	return b.limit(in.TimeoutSecs) + b.grace + bashPipeWait
}

func (b *Bash) limit(secs int) time.Duration {
	d := time.Duration(secs) * time.Second
	switch {
	case secs <= 0:
		return bashDefaultTimeout
	case d > bashMaxTimeout:
		return bashMaxTimeout
	}
	return d
}

// Execute implements tool.Tool.
func (b *Bash) Execute(ctx context.Context, input json.RawMessage) (tool.Result, error) {
	return tool.Run(ctx, b.Name(), input, b.exec)
}

func (b *Bash) exec(ctx context.Context, in BashInput) (tool.Result, error) {
	if strings.TrimSpace(in.Command) == "" {
		return tool.Errorf("bash: command is required"), nil
	}
	if in.TimeoutSecs < 0 {
		return tool.Errorf("bash: timeout_secs must not be negative"), nil
	}
	limit := b.limit(in.TimeoutSecs)

	out := newHeadTail(b.maxOutput)
	cmd := exec.Command(b.shell, "-c", in.Command)
	cmd.Dir = b.ws.Root()
	cmd.Env = b.environ()
	cmd.Stdout, cmd.Stderr = out, out // one pipe: the two streams stay interleaved
	if p := tool.ProgressFrom(ctx); p != nil {
		pw := &progressWriter{w: out, progress: p}
		cmd.Stdout, cmd.Stderr = pw, pw
	}
	cmd.WaitDelay = bashPipeWait
	policy := sandbox.PolicyFromContext(ctx, sandbox.WorkspaceWrite)
	cleanup, refused, err := b.start(cmd, policy)
	if refused != "" {
		return tool.Errorf("%s", refused), nil
	}
	if err != nil {
		return tool.Result{}, fmt.Errorf("bash: cannot start %s: %w", b.shell, err)
	}
	pgid := cmd.Process.Pid

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(limit)
	defer timer.Stop()

	var stopped string // why the group was killed, if it was
	select {
	case err = <-done:
	case <-timer.C:
		stopped = fmt.Sprintf("command timed out after %s", limit)
		err = b.kill(pgid, done)
	case <-ctx.Done():
		stopped = "command was cancelled"
		err = b.kill(pgid, done)
	}

	restored := cleanup() // before the output is read: nothing writes any more
	var res strings.Builder
	text := out.String()
	if text == "" {
		text = "(no output)\n"
	} else if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	res.WriteString(text)
	failed := stopped != ""
	var refusal tool.Refusal
	if stopped != "" {
		fmt.Fprintf(&res, "%s; it and every process it started were killed\n", stopped)
	}
	if len(restored) > 0 {
		fmt.Fprintf(&res, "harness9 undid changes to git's configuration, hooks or repository pointers: %s. "+
			"git runs what these name outside the sandbox the next time the user runs it, so commands may not "+
			"change them; if the change is really needed, tell the user what to change and why\n", listSome(restored, 8))
		failed, refusal = true, tool.RefusedGitGuard
	}
	var exitErr *exec.ExitError
	var code *int
	switch {
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
		code = new(int)
		res.WriteString("exit code: 0")
		if err != nil {
			res.WriteString(" (a background process still held the output open; its later output is not shown)")
		}
	case errors.As(err, &exitErr):
		ws := exitErr.Sys().(syscall.WaitStatus)
		if ws.Signaled() {
			fmt.Fprintf(&res, "killed by signal %d (%s)", int(ws.Signal()), ws.Signal())
		} else {
			fmt.Fprintf(&res, "exit code: %d", ws.ExitStatus())
			code = new(ws.ExitStatus())
		}
		failed = true
	default:
		return tool.Result{}, fmt.Errorf("bash: waiting for the command: %w", err)
	}
	return tool.Result{Output: res.String(), IsError: failed, ExitCode: code, Refused: refusal}, nil
}

// start starts cmd under policy. refused is the model-facing reason when
// the command must not run at all; cleanup kills what the command leaves
// behind and removes its scratch space.
func (b *Bash) start(cmd *exec.Cmd, policy sandbox.Policy) (cleanup func() []string, refused string, err error) {
	if b.confined() {
		p, err := b.sb.Start(cmd, policy)
		if err != nil {
			return nil, "", err
		}
		return p.Cleanup, "", nil
	}
	if policy == sandbox.ReadOnly && !b.gateOnly {
		why := "no kernel sandbox is configured"
		if b.sb != nil {
			why = b.sb.Support().Reason
		}
		return nil, "bash cannot run here while planning: this run must not change anything, and " +
			"without the kernel sandbox nothing guarantees that (" + why + "). " +
			"Explore with read_file, list_files, search_files and glob instead", nil
	}
	if b.sb != nil {
		// No kernel sandbox here, but the user chose to run commands
		// anyway: every layer that needs no kernel still applies (the
		// policy's environment with git hardened, the scratch directory,
		// the session, the git guard).
		p, err := b.sb.StartUnconfined(cmd, policy)
		if err != nil {
			return nil, "", err
		}
		return p.Cleanup, "", nil
	}
	// No sandbox at all (turned off): a session of its own, so the command
	// cannot read the user's terminal and its whole session can be killed
	// afterwards; read-only commands still get git hardened.
	cmd.Env = append(cmd.Env, "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	if policy == sandbox.ReadOnly {
		cmd.Env = sandbox.HardenGitIn(cmd.Env, b.ws.Root())
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	pid := cmd.Process.Pid
	return func() []string { _ = syscall.Kill(-pid, syscall.SIGKILL); return nil }, "", nil
}

// listSome joins the first n items and says how many more there are.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// kill ends the process group: the shell at once, so that no later
// statement of the command runs (a shell that ignores SIGTERM — one that
// traps it, or the first process of the sandbox's PID namespace, which
// ignores it by the kernel's rule — would otherwise go on to the next
// statement); the rest SIGTERM first so programs can clean up, then
// SIGKILL for whatever is left after the grace period. It returns the
// shell's wait error.
func (b *Bash) kill(pgid int, done <-chan error) error {
	_ = syscall.Kill(pgid, syscall.SIGKILL)
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	deadline := time.Now().Add(b.grace)
	var err error
	exited := false
	for time.Now().Before(deadline) {
		if !exited {
			select {
			case err = <-done:
				exited = true
			default:
			}
		}
		// Signal 0 probes the group: ESRCH once every member is gone.
		if exited && syscall.Kill(-pgid, 0) == syscall.ESRCH {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	if !exited {
		err = <-done
	}
	return err
}

// environ is the base environment (WithBaseEnv) without secrets and the
// hidden variables. A confined command's environment is then rebuilt by
// the sandbox from it.
func (b *Bash) environ() []string {
	return sandbox.ScrubEnv(sandbox.BaseEnv(b.baseEnv), nil, b.hideEnv)
}

// progressWriter passes a command's output to its buffer and, as it
// arrives, to the caller's Progress (the TUI shows it in the call's block).
// exec serialises the writes: Stdout and Stderr are the same pointer.
type progressWriter struct {
	w        io.Writer
	progress tool.Progress
}

func (p *progressWriter) Write(b []byte) (int, error) {
	p.progress(string(b))
	return p.w.Write(b)
}
