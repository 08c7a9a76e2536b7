package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// These tests drive the real binary, as programs outside the repo do.

// builds holds one binary per set of build tags, built once per test run.
var builds sync.Map // tags string → *build

type build struct {
	once sync.Once
	path string
	err  error
}

// binary is harness9 as users build it by default (go build ./cmd/harness9),
// or the one HARNESS9_TEST_BINARY names: CI builds it once and runs the
// sandbox tests again as a user who cannot build this module.
func binary(t *testing.T) string {
	if b := os.Getenv("HARNESS9_TEST_BINARY"); b != "" {
		return b
	}
	return buildBinary(t, "")
}

// temporalBinary is harness9 built with the Temporal engine (-tags temporal).
func temporalBinary(t *testing.T) string { return buildBinary(t, "temporal") }

func buildBinary(t testing.TB, tags string) string {
	t.Helper()
	v, _ := builds.LoadOrStore(tags, &build{})
	b := v.(*build)
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "harness9-bin")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, "harness9")
		out, err := exec.Command("go", "build", "-tags", tags, "-o", b.path, "../../cmd/harness9").CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go build -tags %q: %v\n%s", tags, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

type result struct {
	code   int
	stdout string
	stderr string
	events []map[string]any
}

func (r result) types() []string {
	var ts []string
	for _, e := range r.events {
		ts = append(ts, e["type"].(string))
	}
	return ts
}

func (r result) last() map[string]any {
	if len(r.events) == 0 {
		return nil
	}
	return r.events[len(r.events)-1]
}

func (r result) find(typ string) []map[string]any {
	var out []map[string]any
	for _, e := range r.events {
		if e["type"] == typ {
			out = append(out, e)
		}
	}
	return out
}

type harness struct {
	t       *testing.T
	bin     string // the binary to run; "" is binary(t)
	home    string
	workdir string
	env     []string
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{t: t, home: t.TempDir(), workdir: t.TempDir()}
	h.env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "HARNESS9_HOME=" + h.home}
	return h
}

// binary is the harness9 this harness runs.
func (h *harness) binary() string {
	h.t.Helper()
	if h.bin != "" {
		return h.bin
	}
	return binary(h.t)
}

func (h *harness) script(body string) string {
	h.t.Helper()
	p := filepath.Join(h.t.TempDir(), "script.json")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		h.t.Fatal(err)
	}
	return "scripted/" + p
}

func (h *harness) run(stdin string, args ...string) result {
	h.t.Helper()
	cmd := exec.Command(h.binary(), args...)
	cmd.Env = h.env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := runBounded(cmd, runLimit)
	r := result{stdout: out.String(), stderr: errb.String()}
	if errors.Is(err, errRunHung) {
		h.t.Fatalf("harness9 %s: %v\nstdout:\n%s\nstderr (with its goroutines):\n%s", strings.Join(args, " "), err, r.stdout, r.stderr)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		h.t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			r.events = append(r.events, m)
		}
	}
	return r
}

// runLimit bounds one harness9 command of a test: the longest take
// seconds, so one that runs for minutes hangs, and the test says where
// (its goroutines) instead of waiting for the whole run's timeout.
const runLimit = 5 * time.Minute

var errRunHung = errors.New("still running; it was sent SIGQUIT and killed")

// runBounded runs cmd; past limit it sends SIGQUIT (a Go program prints
// its goroutines and exits), then kills it, and returns errRunHung.
func runBounded(cmd *exec.Cmd, limit time.Duration) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	var err error
	done := make(chan struct{})
	go func() { err = cmd.Wait(); close(done) }()
	select {
	case <-done:
		return err
	case <-time.After(limit):
	}
	stopProcess(cmd.Process, syscall.SIGQUIT, done)
	return fmt.Errorf("after %v: %w", limit, errRunHung)
}

// stopProcess sends p sig and waits for exited to close, killing p if it
// is still there after 10 seconds.
func stopProcess(p *os.Process, sig os.Signal, exited <-chan struct{}) {
	_ = p.Signal(sig)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = p.Kill()
		<-exited
	}
}

func TestRunCompletedJSONL(t *testing.T) {
	h := newHarness(t)
	model := h.script(`{"turns": [
	  {"text": "Writing.", "calls": [{"name": "write_file", "input": {"path": "a.txt", "content": "A\n"}}]},
	  {"text": "Wrote a.txt."}
	]}`)
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", model, "write a.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if !json.Valid([]byte(line)) {
			t.Fatalf("stdout has a non-JSON line: %q", line)
		}
	}
	want := []string{"session", "text", "tool_call", "tool_result", "text", "done"}
	got := filterTypes(r.types(), "usage")
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("events = %v, want %v", got, want)
	}
	if r.last()["status"] != "completed" {
		t.Fatalf("done = %v", r.last())
	}
	res := r.find("tool_result")[0]
	if res["is_error"] != false || res["name"] != "write_file" || res["id"] != r.find("tool_call")[0]["id"] {
		t.Fatalf("tool_result = %v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(h.workdir, "a.txt")); string(b) != "A\n" {
		t.Fatalf("a.txt = %q", b)
	}
	sess := r.find("session")[0]
	if sess["mode"] != "default" || sess["workdir"] == "" || sess["session_id"] == "" {
		t.Fatalf("session event = %v", sess)
	}
	// sessions show --json has every message, in order.
	show := h.run("", "sessions", "show", sess["session_id"].(string), "--json")
	var d struct {
		Messages []struct{ Role string } `json:"messages"`
	}
	if err := json.Unmarshal([]byte(show.stdout), &d); err != nil || len(d.Messages) != 4 {
		t.Fatalf("sessions show: %v, %d messages\n%s", err, len(d.Messages), show.stdout)
	}
}

// A script tells a call a boundary refused from a call that failed: the
// tool_result of a read outside the workdir says refused "workspace" (and
// carries none of the file), a read of a missing file inside says nothing.
func TestRunJSONLMarksRefusedCalls(t *testing.T) {
	h := newHarness(t)
	secret := filepath.Join(filepath.Dir(h.workdir), "outside-secret.txt")
	writeFile(t, secret, "s3cret-outside\n")
	model := h.script(`{"turns": [
	  {"calls": [{"name": "read_file", "input": {"path": "../outside-secret.txt"}}, {"name": "read_file", "input": {"path": "missing.txt"}}]},
	  {"text": "Done."}
	]}`)
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", model, "read them")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	res := r.find("tool_result")
	if len(res) != 2 {
		t.Fatalf("tool results %v", res)
	}
	if res[0]["is_error"] != true || res[0]["refused"] != "workspace" || strings.Contains(r.stdout, "s3cret") {
		t.Errorf("the read outside the workdir: %v", res[0])
	}
	if _, ok := res[1]["refused"]; ok || res[1]["is_error"] != true {
		t.Errorf("a missing file inside the workdir is an error, not a refusal: %v", res[1])
	}
}

func filterTypes(ts []string, drop string) []string {
	var out []string
	for _, t := range ts {
		if t != drop {
			out = append(out, t)
		}
	}
	return out
}

func TestRunProviderErrorExits1(t *testing.T) {
	h := newHarness(t)
	model := h.script(`{"turns": [{"error": "model exploded"}]}`)
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", model, "hi")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.stderr)
	}
	if errs := r.find("error"); len(errs) == 0 || !strings.Contains(errs[0]["message"].(string), "model exploded") {
		t.Fatalf("no error event naming the failure: %v", r.events)
	}
	if r.last()["status"] != "error" {
		t.Fatalf("done = %v", r.last())
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	h := newHarness(t)
	for _, args := range [][]string{
		{"run", "-C", h.workdir, "hello"}, // no provider
		{"run", "--approve", "maybe", "-C", h.workdir, "-m", "openai/x", "hello"},
		{"run", "-C", h.workdir, "-m", "nope/x", "hello"},
		{"run", "--bogus-flag"},
		{"sessions", "show", "doesnotexist"},
		{"run", "-C", filepath.Join(h.workdir, "missing"), "hi"},
	} {
		r := h.run("", args...)
		if r.code != 2 {
			t.Errorf("%v: exit %d, want 2\nstderr: %s", args, r.code, r.stderr)
		}
		if strings.Contains(r.stderr, "goroutine ") || r.stderr == "" {
			t.Errorf("%v: stderr should be one clear message, got %q", args, r.stderr)
		}
	}
	r := h.run("", "run", "-C", h.workdir, "hello")
	if !strings.Contains(r.stderr, "OPENAI_API_KEY") || !strings.Contains(r.stderr, "ANTHROPIC_API_KEY") {
		t.Fatalf("no-provider message does not say which env var to set: %q", r.stderr)
	}
}

func TestPromptFromStdin(t *testing.T) {
	h := newHarness(t)
	model := h.script(`{"turns": [{"text": "ok", "match": {"last_user_contains": "from stdin"}}]}`)
	r := h.run("a prompt from stdin\n", "run", "--json", "-C", h.workdir, "-m", model, "-")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}

// planScript plans in one process; its execution turns are played by a
// later process that resumes the session (the file script picks turns by
// history).
const planScript = `{"turns": [
  {"text": "Exploring.", "calls": [{"name": "list_files", "input": {}}], "match": {"no_tool": "write_file"}},
  {"text": "Plan ready.", "calls": [{"name": "submit_plan", "input": {"title": "Two files", "content": "Write a and b.", "steps": ["write a.txt", "write b.txt"]}}]},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write a.txt", "status": "in_progress"}, {"id": "2", "content": "write b.txt", "status": "pending"}]}}], "match": {"has_tool": "write_file"}},
  {"calls": [{"name": "write_file", "input": {"path": "a.txt", "content": "a"}}]},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write a.txt", "status": "completed"}, {"id": "2", "content": "write b.txt", "status": "in_progress"}]}}]},
  {"calls": [{"name": "write_file", "input": {"path": "b.txt", "content": "b"}}]},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write a.txt", "status": "completed"}, {"id": "2", "content": "write b.txt", "status": "completed"}]}}]},
  {"text": "Both files written."}
]}`

func TestPlanThenApproveInAnotherProcess(t *testing.T) {
	h := newHarness(t)
	model := h.script(planScript)
	r := h.run("", "run", "--json", "--plan", "--approve", "never", "-C", h.workdir, "-m", model, "write two files")
	if r.code != 0 || r.last()["status"] != "awaiting_approval" {
		t.Fatalf("plan run: exit %d, last %v\n%s", r.code, r.last(), r.stderr)
	}
	plan := r.find("plan")
	if len(plan) != 1 || plan[0]["title"] != "Two files" {
		t.Fatalf("plan events = %v", plan)
	}
	if _, err := os.Stat(filepath.Join(h.workdir, "a.txt")); err == nil {
		t.Fatal("Plan Mode wrote a file")
	}
	id := r.find("session")[0]["session_id"].(string)

	r = h.run("", "run", "--json", "--resume", id, "--approve", "auto", "-C", h.workdir, "-m", model)
	if r.code != 0 || r.last()["status"] != "completed" {
		t.Fatalf("approve run: exit %d, last %v\nstderr: %s\nstdout: %s", r.code, r.last(), r.stderr, r.stdout)
	}
	approved := r.find("approved")
	if len(approved) != 1 {
		t.Fatalf("approved events = %v", approved)
	}
	taskDir := approved[0]["task_dir"].(string)
	todo, err := os.ReadFile(filepath.Join(taskDir, "TODO.md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(todo), "- [x]") != 2 || strings.Contains(string(todo), "- [ ]") {
		t.Fatalf("TODO.md not all checked:\n%s", todo)
	}
	if _, err := os.Stat(filepath.Join(taskDir, "PLAN.md")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(h.workdir, f)); err != nil {
			t.Fatalf("%s not written: %v", f, err)
		}
	}
	if len(r.find("exec_round")) == 0 {
		t.Fatal("no exec_round event")
	}
}

// A local server speaking the OpenAI Chat Completions SSE wire format.
func TestRunAgainstOpenAIWireServer(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer test-key" {
			http.Error(w, `{"error":{"message":"bad request path or key"}}`, http.StatusUnauthorized)
			return
		}
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta string, finish string) {
			fin := "null"
			if finish != "" {
				fin = `"` + finish + `"`
			}
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", delta, fin)
		}
		if n == 1 {
			chunk(`{"role":"assistant","content":"Reading."}`, "")
			chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read_file","arguments":""}}]}`, "")
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":"}}]}`, "")
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"note.txt\"}"}}]}`, "")
			chunk(`{}`, "tool_calls")
		} else {
			chunk(`{"role":"assistant","content":"The note says hi."}`, "")
			chunk(`{}`, "stop")
		}
		fmt.Fprint(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5,\"total_tokens\":15}}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	h := newHarness(t)
	if err := os.WriteFile(filepath.Join(h.workdir, "note.txt"), []byte("hi"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.env = append(h.env, "OPENAI_API_KEY=test-key", "OPENAI_BASE_URL="+srv.URL+"/v1")
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", "openai/gpt-test", "what does note.txt say?")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stderr, r.stdout)
	}
	res := r.find("tool_result")
	if len(res) != 1 || !strings.Contains(res[0]["output"].(string), "hi") {
		t.Fatalf("tool_result = %v", res)
	}
	texts := r.find("text")
	if len(texts) == 0 || texts[len(texts)-1]["text"] != "The note says hi." {
		t.Fatalf("text events = %v", texts)
	}
}

func TestNestedAgentsMDShownWithTheFile(t *testing.T) {
	h := newHarness(t)
	sub := filepath.Join(h.workdir, "svc")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(h.workdir, "AGENTS.md"), []byte("root rules"), 0o600)
	_ = os.WriteFile(filepath.Join(sub, "AGENTS.md"), []byte("svc rule: use tabs"), 0o600)
	_ = os.WriteFile(filepath.Join(sub, "main.go"), []byte("package main\n"), 0o600)
	model := h.script(`{"turns": [
	  {"calls": [{"name": "read_file", "input": {"path": "svc/main.go"}}], "match": {"system_contains": "root rules"}},
	  {"calls": [{"name": "read_file", "input": {"path": "svc/main.go"}}]},
	  {"text": "ok"}
	]}`)
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", model, "look")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := r.find("tool_result")
	if len(res) != 2 {
		t.Fatalf("tool results = %v", res)
	}
	if !strings.Contains(res[0]["output"].(string), "svc rule: use tabs") {
		t.Fatalf("nested AGENTS.md not shown: %v", res[0]["output"])
	}
	if strings.Contains(res[1]["output"].(string), "svc rule") {
		t.Fatal("nested AGENTS.md shown twice")
	}
}

func TestProviderFailureAfterConfiguredRetries(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"error":{"message":"the backend is on fire","type":"server_error"}}`)
	}))
	defer srv.Close()
	h := newHarness(t)
	cfg := "[retry]\nmax_retries = 1\nmax_wait = \"1s\"\n"
	if err := os.WriteFile(filepath.Join(h.home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	h.env = append(h.env, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.URL+"/v1")
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", "openai/gpt-test", "hello")
	if r.code != 1 || r.last()["status"] != "error" {
		t.Fatalf("exit %d, last %v\n%s", r.code, r.last(), r.stderr)
	}
	msg := r.find("error")[0]["message"].(string)
	for _, want := range []string{"openai", "500", "the backend is on fire"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not name %q", msg, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 2 {
		t.Fatalf("server saw %d requests, want 2 (1 try + max_retries = 1)", calls)
	}
	// The prompt was stored before the failing call.
	id := r.find("session")[0]["session_id"].(string)
	if show := h.run("", "sessions", "show", id, "--json"); !strings.Contains(show.stdout, `"content": "hello"`) {
		t.Fatalf("prompt lost:\n%s", show.stdout)
	}
}

func TestContinueResumesTheLatestSessionOfTheWorkdir(t *testing.T) {
	h := newHarness(t)
	model := h.script(`{"turns": [
	  {"text": "first answer"},
	  {"text": "second answer", "match": {"any_message_contains": "first answer"}}
	]}`)
	first := h.run("", "run", "--json", "-C", h.workdir, "-m", model, "one")
	second := h.run("", "run", "--json", "--continue", "-C", h.workdir, "-m", model, "two")
	if first.code != 0 || second.code != 0 {
		t.Fatalf("exits %d, %d: %s %s", first.code, second.code, first.stderr, second.stderr)
	}
	a, b := first.find("session")[0]["session_id"], second.find("session")[0]["session_id"]
	if a != b {
		t.Fatalf("--continue opened session %v, want %v", b, a)
	}
	if r := h.run("", "run", "--continue", "-C", t.TempDir(), "-m", model, "x"); r.code != 2 || !strings.Contains(r.stderr, "no earlier session") {
		t.Fatalf("--continue in a fresh workdir: exit %d, %q", r.code, r.stderr)
	}
}

// `run --resume` of a session started in another workdir is a usage error
// that says where to run it; the session is left untouched.
func TestResumeFromAnotherWorkdirIsRefused(t *testing.T) {
	h := newHarness(t)
	h.workdir = filepath.Join(t.TempDir(), "my project")
	if err := os.Mkdir(h.workdir, 0o755); err != nil {
		t.Fatal(err)
	}
	model := h.script(`{"turns": [{"text": "one"}, {"text": "two"}]}`)
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", model, "hello")
	if r.code != 0 {
		t.Fatalf("first run: exit %d: %s", r.code, r.stderr)
	}
	id := r.find("session")[0]["session_id"].(string)

	other := t.TempDir()
	r = h.run("", "run", "--json", "--resume", id, "-C", other, "-m", model, "go on")
	if r.code != 2 || !strings.Contains(r.stderr, "-C '"+h.workdir+"'") || r.stdout != "" {
		t.Fatalf("resume from another workdir: exit %d, stdout %q, stderr %q; want exit 2 naming -C '%s'",
			r.code, r.stdout, r.stderr, h.workdir)
	}
	r = h.run("", "sessions", "show", id, "--json")
	var d struct {
		Session  struct{ Workdir string }
		Messages []any
	}
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil || d.Session.Workdir != h.workdir || len(d.Messages) != 2 {
		t.Fatalf("session after the refused resume: %v %+v", err, d)
	}
}

// A command past its limit is stopped and reported as hung, not waited
// for: the process is gone afterwards.
func TestRunBoundedStopsAHungCommand(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := runBounded(cmd, 200*time.Millisecond); !errors.Is(err, errRunHung) {
		t.Fatalf("err = %v, want errRunHung", err)
	}
	if cmd.ProcessState == nil || cmd.ProcessState.Success() {
		t.Fatalf("the hung command was not stopped: %v", cmd.ProcessState)
	}
	if err := runBounded(exec.Command("true"), time.Minute); err != nil {
		t.Fatalf("a command that ends in time: %v", err)
	}
}
