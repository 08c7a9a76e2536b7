package cli_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harness9/harness9/internal/lib/pgtest"
)

// get sends an authorised GET and decodes the JSON answer.
func (p *serveProc) get(token, path string) (int, map[string]any) {
	p.t.Helper()
	req, _ := http.NewRequest("GET", p.url+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

// Through the binaries: `serve --engine temporal` and `harness9 worker` in
// separate processes over a Temporal dev server and a PostgreSQL store. A
// plan made over HTTP waits in its workflow; the serve process is killed
// with SIGKILL; two new serve processes take two approvals at the same
// instant and exactly one takes effect; a token of another root reaches
// nothing; both serve processes are killed right after the approval, and
// the worker carries the plan out alone: the file lands in the workdir,
// the stored todos reach 1/1, every tool call has one result.
func TestServeTemporalKillServeThenApproveOnWorker(t *testing.T) {
	h := newDurableHarness(t)
	dsn := pgtest.NewDatabase(t)
	h.env = append(h.env, "HARNESS9_STORE="+dsn)
	rootB := t.TempDir()
	cfgPath := filepath.Join(h.home, "config.toml")
	cfg, _ := os.ReadFile(cfgPath)
	cfg = append(cfg, []byte("\n[serve]\nroots = [\""+h.workdir+"\", \""+rootB+"\"]\n")...)
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	tokA := strings.TrimSpace(h.run("", "serve", "token", "add", "a", "--root", h.workdir).stdout)
	tokB := strings.TrimSpace(h.run("", "serve", "token", "add", "b", "--root", rootB).stdout)
	if !strings.HasPrefix(tokA, "h9_") || !strings.HasPrefix(tokB, "h9_") {
		t.Fatalf("tokens %q %q", tokA, tokB)
	}
	model := h.script(servePlanScript)
	h.worker()

	s1 := h.serve(model, "--engine", "temporal")
	code, created := s1.post(tokA, "/api/sessions", `{"workdir": "`+h.workdir+`", "mode": "plan", "prompt": "write done.txt"}`)
	if code != 201 {
		t.Fatalf("create: %d %v\n%s", code, created, s1.logs)
	}
	id := created["id"].(string)
	s1.waitEvent(tokA, id, "done", "awaiting_approval")
	if _, err := os.Stat(filepath.Join(h.workdir, "done.txt")); err == nil {
		t.Fatal("done.txt written before approval")
	}
	s1.kill9()

	s2 := h.serve(model, "--engine", "temporal")
	s3 := h.serve(model, "--engine", "temporal")
	// Token B: root A's session does not exist for it, and it cannot
	// create one there.
	for _, path := range []string{"/api/sessions/" + id, "/api/sessions/" + id + "/events"} {
		if code, _ := s2.get(tokB, path); code != 404 {
			t.Errorf("token B: GET %s answered %d", path, code)
		}
	}
	for _, path := range []string{"/review", "/cancel", "/prompt"} {
		if code, _ := s2.post(tokB, "/api/sessions/"+id+path, `{"choice": "approve_auto"}`); code != 404 && code != 400 {
			t.Errorf("token B: POST %s answered %d", path, code)
		}
	}
	if code, _ := s2.post(tokB, "/api/sessions", `{"workdir": "`+h.workdir+`", "prompt": "x"}`); code != 400 {
		t.Errorf("token B created a session in root A: %d", code)
	}
	if code, show := s2.get(tokA, "/api/sessions/"+id); code != 200 || show["status"] != "awaiting_approval" {
		t.Fatalf("after token B's probes: %d %v", code, show)
	}

	codes := make([]int, 2)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, s := range []*serveProc{s2, s3} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			codes[i], _ = s.post(tokA, "/api/sessions/"+id+"/review", `{"choice": "approve_auto"}`)
		}()
	}
	close(start)
	wg.Wait()
	if !(codes[0] == 200 && codes[1] == 409 || codes[0] == 409 && codes[1] == 200) {
		t.Fatalf("two approvals answered %v; want one 200 and one 409\n%s\n%s", codes, s2.logs, s3.logs)
	}
	// No serve process is left: the worker executes the plan alone.
	s2.kill9()
	s3.kill9()

	deadline := time.Now().Add(2 * time.Minute)
	for {
		st := h.stored(id)
		if len(st.Todos) == 1 && st.Todos[0].Status == "completed" {
			results := map[string]int{}
			for _, m := range st.Messages {
				if m.Role == "tool" {
					results[m.ToolCallID]++
				}
			}
			for call, n := range results {
				if n != 1 {
					t.Errorf("call %s has %d results", call, n)
				}
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the worker did not finish the plan: todos %v", st.Todos)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if b, err := os.ReadFile(filepath.Join(h.workdir, "done.txt")); err != nil || string(b) != "done" {
		t.Fatalf("done.txt: %q %v", b, err)
	}
	// A new serve process shows the finished session from the store.
	s4 := h.serve(model, "--engine", "temporal")
	if code, show := s4.get(tokA, "/api/sessions/"+id); code != 200 || show["todos_done"] != float64(1) || show["todos_total"] != float64(1) {
		t.Fatalf("show after execution: %d %v", code, show)
	}
	if code, body := s4.post(tokA, "/api/sessions/"+id+"/review", `{"choice": "approve_auto"}`); code != 409 {
		t.Fatalf("approving the executed plan again: %d %v", code, body)
	}
}
