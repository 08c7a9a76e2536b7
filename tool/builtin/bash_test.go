//go:build unix

package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/tool"
)

// gone reports, waiting up to a few seconds for the kernel to reap it,
// whether process pid no longer runs (a zombie counts as gone).
func gone(t *testing.T, pid int) bool {
	t.Helper()
	for range 250 {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return true
		}
		// Field 3, after "pid (comm)", is the state.
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// firstPID returns the number on the first line of out.
func firstPID(t *testing.T, out string) int {
	t.Helper()
	line, _, _ := strings.Cut(out, "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("no pid at the start of the output %q", out)
	}
	return pid
}

func requireProc(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
}

func TestBashOutputAndExitCode(t *testing.T) {
	ws, root := newWS(t)
	b := NewBash(ws)
	if out := ok(t, b, BashInput{Command: "pwd; echo to-stderr >&2"}); out != root+"\nto-stderr\nexit code: 0" {
		t.Errorf("output = %q", out)
	}
	out := fails(t, b, BashInput{Command: "echo partial; exit 3"}, "partial\n", "exit code: 3")
	if !strings.HasSuffix(out, "exit code: 3") {
		t.Errorf("exit code not last: %q", out)
	}
	if out := ok(t, b, BashInput{Command: "true"}); out != "(no output)\nexit code: 0" {
		t.Errorf("no output = %q", out)
	}
	if out := ok(t, b, BashInput{Command: "printf no-newline"}); out != "no-newline\nexit code: 0" {
		t.Errorf("no trailing newline = %q", out)
	}
	fails(t, b, BashInput{Command: "kill -9 $$"}, "killed by signal 9 (killed)")
	fails(t, b, BashInput{Command: "  "}, "command is required")
	fails(t, b, BashInput{Command: "true", TimeoutSecs: -1}, "negative")
}

func TestBashOutputCap(t *testing.T) {
	ws, _ := newWS(t)
	out := ok(t, NewBash(ws, WithMaxOutput(1000)), BashInput{Command: "seq 1 100000"})
	if !strings.HasPrefix(out, "1\n2\n3\n") || !strings.Contains(out, "99999\n100000\nexit code: 0") ||
		!strings.Contains(out, "bytes of output cut here") || len(out) > 1200 {
		t.Errorf("capped output (%d bytes): %q ... %q", len(out), out[:30], out[len(out)-60:])
	}
}

func TestBashTimeoutKillsGrandchild(t *testing.T) {
	requireProc(t)
	ws, _ := newWS(t)
	b := NewBash(ws, WithKillGrace(200*time.Millisecond))
	// The inner bash is a child of the outer one; its sleep a grandchild.
	out := fails(t, b, BashInput{Command: `bash -c 'sleep 300 & echo $!; wait'`, TimeoutSecs: 1},
		"timed out after 1s", "killed")
	if pid := firstPID(t, out); !gone(t, pid) {
		t.Errorf("grandchild sleep %d survived the timeout", pid)
	}
}

func TestBashTimeoutEscalatesToSIGKILL(t *testing.T) {
	requireProc(t)
	ws, _ := newWS(t)
	b := NewBash(ws, WithKillGrace(200*time.Millisecond))
	out := fails(t, b, BashInput{Command: `trap '' TERM; sleep 300 & echo $!; wait`, TimeoutSecs: 1}, "timed out")
	if pid := firstPID(t, out); !gone(t, pid) {
		t.Errorf("sleep %d ignoring SIGTERM survived", pid)
	}
}

func TestBashCancelKillsGroup(t *testing.T) {
	requireProc(t)
	ws, root := newWS(t)
	b := NewBash(ws, WithKillGrace(200*time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pidFile := filepath.Join(root, "pid")
	go func() {
		// Cancel once the grandchild is running.
		for ctx.Err() == nil {
			if data, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(data), "\n") {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	raw, _ := json.Marshal(BashInput{Command: `bash -c 'sleep 300 & echo $! > pid; wait'`})
	res, err := b.Execute(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Output, "cancelled") {
		t.Fatalf("cancelled command: %+v", res)
	}
	if pid := firstPID(t, readFile(t, pidFile)); !gone(t, pid) {
		t.Errorf("sleep %d survived the cancellation", pid)
	}
}

func TestBashBackgroundProcessDoesNotBlock(t *testing.T) {
	ws, _ := newWS(t)
	// The background sleep keeps the output pipe open; the call still
	// returns once the shell is done (after a short wait for output).
	out := ok(t, NewBash(ws), BashInput{Command: "sleep 3 & echo started", TimeoutSecs: 60})
	if !strings.HasPrefix(out, "started\nexit code: 0") {
		t.Errorf("output = %q", out)
	}
}

func TestBashTimeoutOverride(t *testing.T) {
	ws, _ := newWS(t)
	b := NewBash(ws, WithKillGrace(time.Second))
	for in, want := range map[string]time.Duration{
		`{"command":"x"}`:                    bashDefaultTimeout + time.Second + bashPipeWait,
		`{"command":"x","timeout_secs":5}`:   5*time.Second + time.Second + bashPipeWait,
		`{"command":"x","timeout_secs":900}`: bashMaxTimeout + time.Second + bashPipeWait,
		`not json`:                           0,
	} {
		if got := b.Timeout(json.RawMessage(in)); got != want {
			t.Errorf("Timeout(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestHeadTail(t *testing.T) {
	w := newHeadTail(10)
	for _, s := range []string{"abc", "defgh", "ijklmnop", "qrstuvwxyz"} {
		w.Write([]byte(s))
	}
	if got, want := w.String(), "abcde\n[... 16 bytes of output cut here ...]\nvwxyz"; got != want {
		t.Errorf("headTail = %q, want %q", got, want)
	}
	w = newHeadTail(10)
	w.Write([]byte("short"))
	w.Write([]byte("er"))
	if got := w.String(); got != "shorter" {
		t.Errorf("headTail under the cap = %q", got)
	}
}

// TestBashThroughRegistry checks that bash's own time limit, not the
// Registry's default, governs a call.
func TestBashThroughRegistry(t *testing.T) {
	ws, _ := newWS(t)
	reg := tool.NewRegistry(tool.WithTimeout(50 * time.Millisecond))
	if err := reg.Register(NewBash(ws)); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(BashInput{Command: "sleep 0.3; echo finished", TimeoutSecs: 30})
	res := reg.Execute(context.Background(), nil, llm.ToolCall{ID: "1", Name: "bash", Input: raw})
	if res.IsError || res.Output != "finished\nexit code: 0" {
		t.Errorf("bash through the registry: %+v", res)
	}
}

func TestBashHidesProviderKeys(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret-openai")
	t.Setenv("DEEPSEEK_API_KEY", "sk-secret-deepseek")
	t.Setenv("HARNESS9_VISIBLE", "shown")
	ws, _ := newWS(t)
	out := ok(t, NewBash(ws, WithBaseEnv(os.Environ()), WithHiddenEnv("DEEPSEEK_API_KEY")), BashInput{Command: "env"})
	if strings.Contains(out, "sk-secret") {
		t.Fatalf("a provider key reached the command:\n%s", out)
	}
	if !strings.Contains(out, "HARNESS9_VISIBLE=shown") {
		t.Fatalf("ordinary variables must stay visible:\n%s", out)
	}
}

// Without WithBaseEnv the tool passes nothing of the process's environment
// on: a library user's agent does not hand its variables to the model.
func TestBashInheritsNothingUnlessGiven(t *testing.T) {
	t.Setenv("HARNESS9_VISIBLE", "shown")
	ws, _ := newWS(t)
	out := ok(t, NewBash(ws), BashInput{Command: "env; ls /bin/sh"})
	if strings.Contains(out, "HARNESS9_VISIBLE") {
		t.Fatalf("the process environment reached the command:\n%s", out)
	}
	if !strings.Contains(out, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n") || !strings.Contains(out, "/bin/sh") {
		t.Fatalf("commands need a PATH:\n%s", out)
	}
}
