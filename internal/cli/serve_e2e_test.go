package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// servePlanScript plans one step and executes it.
const servePlanScript = `{"turns": [
  {"text": "Plan ready.", "calls": [{"name": "submit_plan", "input": {"title": "One file", "content": "Write done.txt.", "steps": ["write done.txt"]}}]},
  {"calls": [{"name": "write_file", "input": {"path": "done.txt", "content": "done"}}]},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write done.txt", "status": "completed"}]}}]},
  {"text": "Finished."}
]}`

// serveProc is a running `harness9 serve`.
type serveProc struct {
	t    *testing.T
	cmd  *exec.Cmd
	url  string
	logs *bytes.Buffer
	done chan struct{}
	// header is sent with every request post makes (a traceparent).
	header http.Header
}

func (h *harness) serve(model string, extra ...string) *serveProc {
	h.t.Helper()
	cmd := exec.Command(h.binary(), append([]string{"serve", "--listen", "127.0.0.1:0", "-m", model}, extra...)...)
	cmd.Env = h.env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	p := &serveProc{t: h.t, cmd: cmd, logs: &bytes.Buffer{}, done: make(chan struct{})}
	h.t.Cleanup(func() { _ = cmd.Process.Kill(); <-p.done })
	addr := make(chan string, 1)
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			p.logs.WriteString(line + "\n")
			if _, rest, ok := strings.Cut(line, "listening on "); ok {
				addr <- strings.Fields(rest)[0]
			}
		}
		_ = cmd.Wait()
	}()
	select {
	case p.url = <-addr:
	case <-p.done:
		h.t.Fatalf("serve exited: %s", p.logs.String())
	}
	return p
}

// stop sends SIGTERM and returns the exit code.
func (p *serveProc) stop() int {
	p.t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	<-p.done
	return p.cmd.ProcessState.ExitCode()
}

// kill9 kills the process with SIGKILL: no shutdown, nothing saved.
func (p *serveProc) kill9() {
	p.t.Helper()
	_ = p.cmd.Process.Kill()
	<-p.done
}

func (p *serveProc) post(token, path, body string) (int, map[string]any) {
	p.t.Helper()
	req, _ := http.NewRequest("POST", p.url+path, strings.NewReader(body))
	for k, v := range p.header {
		req.Header[k] = v
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

// planApproveExecute creates a Plan-Mode session in workdir with prompt,
// waits for its plan, approves it for auto-execution and waits until it
// has been carried out. It returns the session's id.
func (p *serveProc) planApproveExecute(token, workdir, prompt string) string {
	p.t.Helper()
	code, created := p.post(token, "/api/sessions", `{"workdir": "`+workdir+`", "mode": "plan", "prompt": "`+prompt+`"}`)
	if code != 201 {
		p.t.Fatalf("create: %d %v\n%s", code, created, p.logs)
	}
	id := created["id"].(string)
	p.waitEvent(token, id, "done", "awaiting_approval")
	if code, _ := p.post(token, "/api/sessions/"+id+"/review", `{"choice": "approve_auto"}`); code != 200 {
		p.t.Fatalf("review: %d\n%s", code, p.logs)
	}
	p.waitEvent(token, id, "done", "completed")
	return id
}

// waitEvent reads the session's event stream until an event of typ with
// the wanted status.
func (p *serveProc) waitEvent(token, id, typ, status string) {
	p.t.Helper()
	req, _ := http.NewRequest("GET", p.url+"/api/sessions/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		lr, _ := http.NewRequest("GET", p.url+"/api/sessions", nil)
		lr.Header.Set("Authorization", "Bearer "+token)
		if lresp, err := http.DefaultClient.Do(lr); err == nil {
			lb, _ := io.ReadAll(lresp.Body)
			lresp.Body.Close()
			p.t.Logf("sessions: %s", lb)
		}
		p.t.Fatalf("events: %d %s", resp.StatusCode, b)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	var seen []string
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev map[string]any
		if json.Unmarshal([]byte(data), &ev) != nil {
			p.t.Fatalf("not JSON: %s", data)
		}
		seen = append(seen, data)
		if ev["type"] == typ && ev["status"] == status {
			return
		}
	}
	p.t.Fatalf("no %s %s event; saw %v\nlogs: %s", typ, status, seen, p.logs.String())
}

// Through the binary: a plan waits for approval, serve is stopped with
// SIGTERM (exit 0, lock released), started again, and approving the plan
// then executes it.
func TestServeRestartThenApprove(t *testing.T) {
	h := newHarness(t)
	root := h.workdir
	if err := os.WriteFile(filepath.Join(h.home, "config.toml"), []byte("[serve]\nroots = [\""+root+"\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := h.run("", "serve", "token", "add", "ci", "--root", root)
	token := strings.TrimSpace(r.stdout)
	if r.code != 0 || !strings.HasPrefix(token, "h9_") {
		t.Fatalf("token add: %d %q %s", r.code, r.stdout, r.stderr)
	}
	cfg, _ := os.ReadFile(filepath.Join(h.home, "config.toml"))
	if strings.Contains(string(cfg), token) {
		t.Fatal("config.toml holds the token itself")
	}
	model := h.script(servePlanScript)

	s := h.serve(model)
	code, created := s.post(token, "/api/sessions", `{"workdir": "`+root+`", "mode": "plan", "prompt": "write done.txt"}`)
	if code != 201 {
		t.Fatalf("create: %d %v\n%s", code, created, s.logs)
	}
	id := created["id"].(string)
	s.waitEvent(token, id, "done", "awaiting_approval")
	if c := s.stop(); c != 0 {
		t.Fatalf("serve exited %d after SIGTERM\n%s", c, s.logs)
	}
	// The session is free: a headless run could take it now.
	if st := h.run("", "sessions", "show", id, "--json"); st.code != 0 || !strings.Contains(st.stdout, "awaiting_approval") {
		t.Fatalf("after shutdown: %d %s %s", st.code, st.stdout, st.stderr)
	}

	s = h.serve(model)
	if code, body := s.post(token, "/api/sessions/"+id+"/review", `{"choice": "approve_auto"}`); code != 200 {
		t.Fatalf("review after restart: %d %v\n%s", code, body, s.logs)
	}
	s.waitEvent(token, id, "done", "completed")
	if b, err := os.ReadFile(filepath.Join(root, "done.txt")); err != nil || string(b) != "done" {
		t.Fatalf("done.txt: %q %v", b, err)
	}
	if c := s.stop(); c != 0 {
		t.Fatalf("second serve exited %d", c)
	}
}

// serve without roots or tokens says what to configure, exit 2.
func TestServeNeedsConfig(t *testing.T) {
	h := newHarness(t)
	r := h.run("", "serve", "--listen", "127.0.0.1:0", "-m", h.script(servePlanScript))
	if r.code != 2 || !strings.Contains(r.stderr, "[serve] roots") {
		t.Fatalf("no roots: %d %s", r.code, r.stderr)
	}
	_ = os.WriteFile(filepath.Join(h.home, "config.toml"), []byte("[serve]\nroots = [\""+h.workdir+"\"]\n"), 0o600)
	r = h.run("", "serve", "--listen", "127.0.0.1:0", "-m", h.script(servePlanScript))
	if r.code != 2 || !strings.Contains(r.stderr, "serve token add") {
		t.Fatalf("no tokens: %d %s", r.code, r.stderr)
	}
}
