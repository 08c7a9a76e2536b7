//go:build linux

package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/tool"
)

func runBash(t *testing.T, ctx context.Context, b *Bash, command string) (string, bool) {
	t.Helper()
	raw, _ := json.Marshal(BashInput{Command: command, TimeoutSecs: 30})
	res, err := b.Execute(ctx, raw)
	if err != nil {
		t.Fatalf("bash %q: %v", command, err)
	}
	return res.Output, res.IsError
}

// TestBashReadOnlyContextIsEnforcedByTheKernel: in a read-only context the
// command runs under the sandbox's ReadOnly policy, so a write fails at the
// system call and nothing lands on disk.
func TestBashReadOnlyContextIsEnforcedByTheKernel(t *testing.T) {
	if sup := sandbox.Probe(); !sup.Available {
		t.Skipf("no kernel sandbox here: %s", sup.Reason)
	}
	ws, dir := newWS(t)
	sb, err := sandbox.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBash(ws, WithSandbox(sb))
	ro := sandbox.ContextWithPolicy(context.Background(), sandbox.ReadOnly)
	out, _ := runBash(t, ro, b, "echo pwned > planted; echo done")
	if _, err := os.Stat(filepath.Join(dir, "planted")); err == nil {
		t.Fatalf("a read-only bash call wrote a file:\n%s", out)
	}
	if !strings.Contains(out, "done") {
		t.Errorf("the command should still run and report:\n%s", out)
	}
	// Without a read-only context the same command writes the workdir.
	runBash(t, context.Background(), b, "echo made > made")
	if _, err := os.Stat(filepath.Join(dir, "made")); err != nil {
		t.Errorf("a workspace-write call could not write the workdir: %v", err)
	}
	if !b.Contained() || !b.CanRunReadOnly() {
		t.Error("a sandboxed bash must report itself contained")
	}
}

// TestBashWithoutSandboxRefusesReadOnly: with no kernel sandbox, a
// read-only call does not run at all unless gate-only was chosen.
func TestBashWithoutSandboxRefusesReadOnly(t *testing.T) {
	ws, dir := newWS(t)
	sb, err := sandbox.New(dir, sandbox.WithSupport(sandbox.Support{Reason: "simulated: no Landlock"}))
	if err != nil {
		t.Fatal(err)
	}
	ro := sandbox.ContextWithPolicy(context.Background(), sandbox.ReadOnly)
	for _, b := range []*Bash{NewBash(ws), NewBash(ws, WithSandbox(sb))} {
		out, isErr := runBash(t, ro, b, "echo pwned > planted")
		if !isErr {
			t.Errorf("read-only call without a sandbox ran: %s", out)
		}
		if _, err := os.Stat(filepath.Join(dir, "planted")); err == nil {
			t.Fatal("a refused read-only call wrote a file")
		}
		if b.Contained() || b.CanRunReadOnly() {
			t.Error("an unconfined bash must not claim it can run read-only")
		}
	}
	gated := NewBash(ws, WithSandbox(sb), WithUnconfinedReadOnly(true))
	if out, isErr := runBash(t, ro, gated, "echo ran"); isErr || !strings.Contains(out, "ran") {
		t.Errorf("gate-only bash should run a read-only call: %s", out)
	}
	if gated.Contained() || !gated.CanRunReadOnly() {
		t.Error("gate-only bash: not contained, but can run read-only")
	}
}

// TestBashUnconfinedKillsLeftovers: without a sandbox, what a command
// leaves running in its session is killed when the call returns.
func TestBashUnconfinedKillsLeftovers(t *testing.T) {
	requireProc(t)
	ws, dir := newWS(t)
	b := NewBash(ws)
	pidFile := filepath.Join(dir, "pid")
	runBash(t, context.Background(), b, "sleep 300 & echo $! > pid")
	if pid := firstPID(t, readFile(t, pidFile)); !gone(t, pid) {
		t.Errorf("background sleep %d outlived its call", pid)
	}
}

// TestBashScrubsSecrets: secret-looking variables never reach a command,
// confined or not, in any letter case.
func TestBashScrubsSecrets(t *testing.T) {
	t.Setenv("github_token", "tok-secret-1")
	t.Setenv("MY_SERVICE_PASSWORD", "pw-secret-2")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws-secret-3")
	ws, dir := newWS(t)
	env := WithBaseEnv(os.Environ()) // as the CLI passes it: the secrets are in it
	bashes := []*Bash{NewBash(ws, env)}
	if sandbox.Probe().Available {
		sb, err := sandbox.New(dir)
		if err != nil {
			t.Fatal(err)
		}
		bashes = append(bashes, NewBash(ws, env, WithSandbox(sb)))
	}
	for _, b := range bashes {
		for _, ctx := range []context.Context{context.Background(), sandbox.ContextWithPolicy(context.Background(), sandbox.ReadOnly)} {
			if !b.CanRunReadOnly() && ctx != context.Background() {
				continue
			}
			out, _ := runBash(t, ctx, b, "env; cat /proc/self/environ 2>/dev/null")
			if strings.Contains(out, "-secret-") {
				t.Errorf("a secret reached the command:\n%s", out)
			}
		}
	}
}

// With the network allowed, bash is no longer contained outside Plan Mode
// (Default asks), but it still runs read-only while planning.
func TestBashWithNetworkIsNotContained(t *testing.T) {
	if sup := sandbox.Probe(); !sup.Available {
		t.Skipf("no kernel sandbox here: %s", sup.Reason)
	}
	ws, dir := newWS(t)
	sb, err := sandbox.New(dir, sandbox.WithNetwork(true))
	if err != nil {
		t.Fatal(err)
	}
	b := NewBash(ws, WithSandbox(sb))
	if b.Contained() || !b.CanRunReadOnly() {
		t.Errorf("network allowed: Contained=%v CanRunReadOnly=%v, want false, true", b.Contained(), b.CanRunReadOnly())
	}
	ro := sandbox.ContextWithPolicy(context.Background(), sandbox.ReadOnly)
	runBash(t, ro, b, "echo x > planted")
	if _, err := os.Stat(filepath.Join(dir, "planted")); err == nil {
		t.Error("a read-only call wrote with the network allowed")
	}
}

// A cancelled command stops where it is: no later statement runs, neither
// in the sandbox (where the shell is the first process of its PID
// namespace and the kernel has it ignore SIGTERM) nor in a shell that
// traps SIGTERM itself.
func TestBashCancelRunsNoLaterStatement(t *testing.T) {
	ws, dir := newWS(t)
	tools := map[string]*Bash{"unconfined": NewBash(ws)}
	if sup := sandbox.Probe(); sup.Available {
		sb, err := sandbox.New(dir)
		if err != nil {
			t.Fatal(err)
		}
		tools["sandboxed"] = NewBash(ws, WithSandbox(sb))
	}
	for name, b := range tools {
		for i, command := range []string{"echo started; sleep 60; touch late-%d", "trap '' TERM; echo started; sleep 60; touch late-%d"} {
			late := fmt.Sprintf("late-%d", i)
			ctx, cancel := context.WithCancel(context.Background())
			p := tool.Progress(func(text string) {
				if strings.Contains(text, "started") {
					cancel()
				}
			})
			out, _ := runBash(t, tool.ContextWithProgress(ctx, p), b, fmt.Sprintf(command, i))
			cancel()
			if !strings.Contains(out, "cancelled") {
				t.Errorf("%s %q: %s", name, command, out)
			}
			if _, err := os.Stat(filepath.Join(dir, late)); err == nil {
				t.Errorf("%s: the statement after the cancelled one ran (%s exists)", name, late)
			}
			os.Remove(filepath.Join(dir, late))
		}
	}
}

// TestBashWithoutAnySandboxRunsNoGitDriver: with the sandbox off and
// gate-only read-only commands, git still runs no program the repository's
// configuration names for a driver (here a filter's clean program, which
// git status runs).
func TestBashWithoutAnySandboxRunsNoGitDriver(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws, dir := newWS(t)
	canary := filepath.Join(t.TempDir(), "CLEAN-RAN")
	setup := exec.Command("bash", "-c", `git init -q . && echo one > a.txt && git add a.txt && `+
		`git -c user.name=u -c user.email=u@x commit -qm init && echo '*.txt filter=f' > .git/info/attributes && `+
		`git config filter.f.clean "sh -c 'touch `+canary+`; cat'" && touch a.txt`)
	setup.Dir, setup.Env = dir, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1"}
	if out, err := setup.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	ro := sandbox.ContextWithPolicy(context.Background(), sandbox.ReadOnly)
	out, _ := runBash(t, ro, NewBash(ws, WithUnconfinedReadOnly(true)), "git status --short")
	if _, err := os.Stat(canary); err == nil {
		t.Errorf("git status ran the repository's clean filter:\n%s", out)
	}
}

// Bash says why a call is not contained, in the user's terms: a sandbox
// the user turned off is not one the system lacks.
func TestBashSaysWhyItIsNotContained(t *testing.T) {
	ws, dir := newWS(t)
	missing, err := sandbox.New(dir, sandbox.WithSupport(sandbox.Support{Reason: "simulated: no Landlock"}))
	if err != nil {
		t.Fatal(err)
	}
	open, err := sandbox.New(dir, sandbox.WithNetwork(true), sandbox.WithSupport(sandbox.Support{Available: true}))
	if err != nil {
		t.Fatal(err)
	}
	closed, err := sandbox.New(dir, sandbox.WithSupport(sandbox.Support{Available: true}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		b    *Bash
		want string
	}{
		{NewBash(ws), "turned off"},
		{NewBash(ws, WithSandbox(missing)), "not available on this system"},
		{NewBash(ws, WithSandbox(open)), "reach the network"},
		{NewBash(ws, WithSandbox(closed)), ""},
	} {
		got := c.b.UncontainedReason()
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("UncontainedReason() = %q, want it to say %q", got, c.want)
		}
	}
}
