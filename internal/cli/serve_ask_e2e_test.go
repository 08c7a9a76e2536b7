package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/harness9/harness9/internal/lib/browsertest"
	"github.com/harness9/harness9/internal/lib/pgtest"
)

// confirmScript plans three files; executing, the model writes a.txt and
// b.txt, then — only once it has seen why b.txt was refused — c.txt.
const confirmScript = `{"turns": [
  {"text": "Plan ready.", "calls": [{"name": "submit_plan", "input": {"title": "Three files", "content": "Write a, b and c.", "steps": ["write a.txt", "write b.txt", "write c.txt"]}}]},
  {"calls": [
    {"id": "wa", "name": "write_file", "input": {"path": "a.txt", "content": "a"}},
    {"id": "wb", "name": "write_file", "input": {"path": "b.txt", "content": "b"}},
    {"id": "t1", "name": "todo_write", "input": {"todos": [{"id": "1", "content": "write a.txt", "status": "completed"}, {"id": "2", "content": "write b.txt", "status": "cancelled"}, {"id": "3", "content": "write c.txt", "status": "in_progress"}]}}]},
  {"match": {"any_message_contains": "b is not needed"}, "calls": [
    {"id": "wc", "name": "write_file", "input": {"path": "c.txt", "content": "c"}},
    {"id": "t2", "name": "todo_write", "input": {"todos": [{"id": "1", "content": "write a.txt", "status": "completed"}, {"id": "2", "content": "write b.txt", "status": "cancelled"}, {"id": "3", "content": "write c.txt", "status": "completed"}]}}]},
  {"text": "a.txt and c.txt written; b.txt was not needed."}
]}`

// sseReader reads a session's event stream from one serve process.
type sseReader struct {
	t    *testing.T
	sc   *bufio.Scanner
	seen []map[string]any
}

// events opens the session's event stream.
func (p *serveProc) events(token, id string) *sseReader {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	p.t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", p.url+"/api/sessions/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 {
		p.t.Fatalf("events: %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	return &sseReader{t: p.t, sc: sc}
}

// until reads until an event of typ with the wanted fields and returns it.
func (r *sseReader) until(typ string, want map[string]any) map[string]any {
	r.t.Helper()
	for r.sc.Scan() {
		data, ok := strings.CutPrefix(r.sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			r.t.Fatalf("not JSON: %s", data)
		}
		r.seen = append(r.seen, ev)
		match := ev["type"] == typ
		for k, v := range want {
			match = match && ev[k] == v
		}
		if match {
			return ev
		}
	}
	r.t.Fatalf("no %s %v event; saw %v", typ, want, r.seen)
	return nil
}

// show returns the session as GET /api/sessions/{id} answers.
func (p *serveProc) show(token, id string) map[string]any {
	p.t.Helper()
	code, body := p.get(token, "/api/sessions/"+id)
	if code != 200 {
		p.t.Fatalf("show: %d %v", code, body)
	}
	return body
}

// Through the binaries — a Temporal dev server, a PostgreSQL store, two
// workers, serve --engine temporal — a plan approved with "confirm each
// edit" asks before each write, and each question waits in the workflow:
// the first is answered from the review page in headless Chromium; the
// serve process is killed with -9 while the second waits, and a new one
// lists it and takes its denial (with a reason the model then sees: its
// next turn is scripted to need it) once, refusing a second answer; a
// worker is killed with -9 while the third waits, and `sessions answer`
// lists and answers it, once. The execution completes on the other
// worker: a.txt and c.txt are written, b.txt is not, each question was
// answered exactly once and each tool call has exactly one result.
func TestServeTemporalConfirmEachEdit(t *testing.T) {
	bctx := browsertest.Start(t)
	h := newDurableHarness(t)
	h.env = append(h.env, "HARNESS9_STORE="+pgtest.NewDatabase(t))
	cfgPath := filepath.Join(h.home, "config.toml")
	cfg, _ := os.ReadFile(cfgPath)
	cfg = append(cfg, []byte("\n[serve]\nroots = [\""+h.workdir+"\"]\n")...)
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	tok := strings.TrimSpace(h.run("", "serve", "token", "add", "a", "--root", h.workdir).stdout)
	model := h.script(confirmScript)
	first := h.worker()
	h.worker()

	s1 := h.serve(model, "--engine", "temporal")
	code, created := s1.post(tok, "/api/sessions", `{"workdir": "`+h.workdir+`", "mode": "plan", "prompt": "write three files"}`)
	if code != 201 {
		t.Fatalf("create: %d %v\n%s", code, created, s1.logs)
	}
	id := created["id"].(string)
	ev := s1.events(tok, id)
	ev.until("state", map[string]any{"status": "awaiting_approval", "running": false})
	if code, body := s1.post(tok, "/api/sessions/"+id+"/review", `{"choice": "approve_confirm"}`); code != 200 {
		t.Fatalf("approve_confirm: %d %v", code, body)
	}
	ask := ev.until("permission_ask", map[string]any{"id": "wa"})
	if ask["tool"] != "write_file" || !strings.Contains(ask["preview"].(string), "a.txt") {
		t.Fatalf("the first question: %v", ask)
	}

	// The first answer, from the review page in a real browser.
	err := chromedp.Do(bctx,
		chromedp.Navigate(s1.url+"/s/"+id),
		chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), tok),
		chromedp.Click(chromedp.ID("login")),
		chromedp.WaitVisible(chromedp.CSS("#ask-wa button.answer-allow")),
		chromedp.Click(chromedp.CSS("#ask-wa button.answer-allow")),
		chromedp.WaitNotPresent(chromedp.ID("ask-wa")),
	)
	if err != nil {
		t.Fatalf("answer from the page: %v\n%s", err, s1.logs)
	}
	ev.until("permission_answered", map[string]any{"id": "wa", "answer": "allow"})
	ev.until("permission_ask", map[string]any{"id": "wb"})
	if _, err := os.Stat(filepath.Join(h.workdir, "b.txt")); err == nil {
		t.Fatal("b.txt was written before its answer")
	}

	// The serve process goes away while the second question waits; a new
	// one lists it and takes the answer once.
	s1.kill9()
	s2 := h.serve(model, "--engine", "temporal")
	asks, _ := s2.show(tok, id)["permission_asks"].([]any)
	if len(asks) != 1 || asks[0].(map[string]any)["id"] != "wb" {
		t.Fatalf("the new serve process lists asks %v, want wb", asks)
	}
	if code, body := s2.post(tok, "/api/sessions/"+id+"/permissions/wb", `{"answer": "deny", "reason": "b is not needed"}`); code != 200 {
		t.Fatalf("deny: %d %v", code, body)
	}
	if code, body := s2.post(tok, "/api/sessions/"+id+"/permissions/wb", `{"answer": "allow"}`); code != 409 {
		t.Fatalf("a second answer: %d %v", code, body)
	}
	ev = s2.events(tok, id)
	ev.until("permission_ask", map[string]any{"id": "wc"})

	// A worker dies while the third question waits; the answer comes
	// from the command line and lands once, on the other worker.
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if r := h.run("", "sessions", "answer", id); r.code != 0 || !strings.Contains(r.stdout, "wc  write_file") ||
		!strings.Contains(r.stdout, "sessions answer "+id+" wc allow|always|deny") {
		t.Fatalf("sessions answer %s: exit %d\n%s\n%s", id, r.code, r.stdout, r.stderr)
	}
	if r := h.run("", "sessions", "answer", id, "wc", "allow"); r.code != 0 {
		t.Fatalf("sessions answer wc allow: exit %d\n%s", r.code, r.stderr)
	}
	if r := h.run("", "sessions", "answer", id, "wc", "deny"); r.code != 1 || !strings.Contains(r.stderr, "answered already") {
		t.Fatalf("a second answer from the command line: exit %d\n%s", r.code, r.stderr)
	}
	ev.until("done", map[string]any{"status": "completed"})

	for f, want := range map[string]bool{"a.txt": true, "b.txt": false, "c.txt": true} {
		if _, err := os.Stat(filepath.Join(h.workdir, f)); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", f, err == nil, want)
		}
	}
	answered := map[string]int{}
	for _, e := range ev.seen {
		if e["type"] == "permission_answered" {
			answered[e["id"].(string)]++
		}
	}
	if answered["wa"] != 1 || answered["wb"] != 1 || answered["wc"] != 1 || len(answered) != 3 {
		t.Fatalf("answers in the event stream: %v; want each question answered once", answered)
	}
	st := h.stored(id)
	results := map[string][]string{}
	for _, m := range st.Messages {
		if m.Role == "tool" {
			results[m.ToolCallID] = append(results[m.ToolCallID], m.Content)
		}
	}
	for _, m := range st.Messages {
		for _, c := range m.ToolCalls {
			if len(results[c.ID]) != 1 {
				t.Errorf("call %s has %d results", c.ID, len(results[c.ID]))
			}
		}
	}
	if got := results["wb"]; len(got) != 1 || got[0] != "the user denied this call: b is not needed" {
		t.Fatalf("the model saw %q for b.txt", got)
	}
	if done := st.Todos; len(done) != 3 || done[2].Status != "completed" {
		t.Fatalf("stored todos %v", done)
	}
}

// Headless, from the command line: `sessions approve --mode confirm`
// follows the execution and prints each question as `run --json` prints a
// local one (an approval_request line), with a note naming the command
// that answers it; `sessions answer` answers each (allow, deny with a
// reason, always), and the approval's process ends completed.
func TestSessionsApproveConfirmThenAnswer(t *testing.T) {
	h := newDurableHarness(t)
	h.worker()
	model := h.script(confirmScript)
	r := h.run("", "run", "--json", "--engine", "temporal", "--plan", "--approve", "never", "-C", h.workdir, "-m", model, "write three files")
	if r.code != 0 || r.last()["status"] != "awaiting_approval" {
		t.Fatalf("plan: exit %d %v\n%s", r.code, r.last(), r.stderr)
	}
	id := r.find("session")[0]["session_id"].(string)

	cmd := exec.Command(h.binary(), "sessions", "approve", id, "--mode", "confirm", "--json")
	cmd.Env = h.env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	answers := map[string][]string{"wa": {"allow"}, "wb": {"deny", "--reason", "b is not needed"}, "wc": {"always"}}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	var last map[string]any
	asked := 0
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("not JSON on stdout: %s", sc.Text())
		}
		last = ev
		if ev["type"] != "approval_request" {
			continue
		}
		asked++
		call := ev["id"].(string)
		a := answers[call]
		if a == nil {
			t.Fatalf("asked about %s: %v", call, ev)
		}
		if r := h.run("", append([]string{"sessions", "answer", id, call}, a...)...); r.code != 0 {
			t.Fatalf("answer %s: exit %d\n%s", call, r.code, r.stderr)
		}
	}
	if err := cmd.Wait(); err != nil || last["type"] != "done" || last["status"] != "completed" || asked != 3 {
		t.Fatalf("approve: %v, last %v, %d questions\n%s", err, last, asked, stderr.String())
	}
	if !strings.Contains(stderr.String(), "harness9 sessions answer "+id+" wa allow|always|deny") {
		t.Fatalf("no note naming the answer command:\n%s", stderr.String())
	}
	for f, want := range map[string]bool{"a.txt": true, "b.txt": false, "c.txt": true} {
		if _, err := os.Stat(filepath.Join(h.workdir, f)); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", f, err == nil, want)
		}
	}
}

// `run --engine temporal --approve ask` asks on the terminal as a local run
// does — the plan (2: approve and confirm each edit), then each write —
// and sends each answer to the workflow: a.txt allowed, b.txt denied with
// a reason the model then sees, c.txt allowed.
func TestRunTemporalApproveAskAnswersOnTheTerminal(t *testing.T) {
	h := newDurableHarness(t)
	h.worker()
	r := h.run("2\ny\nn\nb is not needed\ny\n", "run", "--json", "--engine", "temporal", "--plan", "--approve", "ask",
		"-C", h.workdir, "-m", h.script(confirmScript), "write three files")
	if r.code != 0 || r.last()["status"] != "completed" || len(r.find("approval_request")) != 3 {
		t.Fatalf("exit %d, last %v, %d questions\n%s", r.code, r.last(), len(r.find("approval_request")), r.stderr)
	}
	for _, want := range []string{"Approve this plan?", "write_file wants to run", "Reason (sent to the model)"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	for f, want := range map[string]bool{"a.txt": true, "b.txt": false, "c.txt": true} {
		if _, err := os.Stat(filepath.Join(h.workdir, f)); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", f, err == nil, want)
		}
	}
}
