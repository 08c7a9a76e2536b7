package cli_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
)

// stepsScript plans n steps and carries each out: in progress, write
// step-<i>.txt, a bash call that notes its run in runs-<i>.txt and sleeps
// (checking the step: the session is mid-execution for a while, and a
// command cut short changes no other file), completed; then it says it is
// done. Step i sleeps sleeps[i-1] seconds (the last one given for the
// rest). Its turns follow the
// stored history (scripted files count assistant messages), so a session
// whose messages were lost or doubled would replay a turn, and the call ids
// (call_<turn>_1) would repeat.
func stepsScript(t *testing.T, n int, sleeps ...string) string {
	t.Helper()
	todos := func(done, active int) map[string]any {
		var items []map[string]string
		for i := 1; i <= n; i++ {
			st := "pending"
			switch {
			case i <= done:
				st = "completed"
			case i == active:
				st = "in_progress"
			}
			items = append(items, map[string]string{"id": fmt.Sprint(i), "content": fmt.Sprintf("step %d", i), "status": st})
		}
		return map[string]any{"todos": items}
	}
	var steps []string
	for i := 1; i <= n; i++ {
		steps = append(steps, fmt.Sprintf("step %d", i))
	}
	turns := []turnJSON{{"text": "Plan ready.", "calls": []any{call("submit_plan",
		map[string]any{"title": "Steps", "content": "Carry out the steps.", "steps": steps})}}}
	for i := 1; i <= n; i++ {
		turns = append(turns,
			turnJSON{"calls": []any{call("todo_write", todos(i-1, i))}},
			turnJSON{"text": fmt.Sprintf("Working on step %d.", i),
				"calls": []any{call("write_file", map[string]any{"path": fmt.Sprintf("step-%d.txt", i), "content": fmt.Sprint(i)})}},
			turnJSON{"calls": []any{call("bash", map[string]any{"command": fmt.Sprintf("echo run >> runs-%d.txt; sleep %s; grep -q %d step-%d.txt",
				i, sleeps[min(i, len(sleeps))-1], i, i)})}},
			turnJSON{"calls": []any{call("todo_write", todos(i, 0))}})
	}
	turns = append(turns, turnJSON{"text": "All steps done."})
	b, err := json.Marshal(map[string]any{"turns": turns})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// commandRuns is how many times step i's command ran in dir.
func commandRuns(t *testing.T, dir string, i int) int {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("runs-%d.txt", i)))
	return strings.Count(string(b), "run")
}

// stepsTurns is the number of assistant turns stepsScript plays.
func stepsTurns(n int) int { return 1 + 4*n + 1 }

// checkIntact checks a session that ran stepsScript(n) to the end, as the
// store has it: every tool call answered exactly once, right after its
// message; no call id twice (no message stored twice, none lost and
// replayed); one assistant message per turn of the script; every todo
// completed; the step files in workdir.
func checkIntact(t *testing.T, s storedSession, workdir string, n int) {
	t.Helper()
	calls, results := map[string]int{}, map[string]int{}
	assistants := 0
	for _, m := range s.Messages {
		if m.Role == llm.RoleAssistant {
			assistants++
		}
		for _, c := range m.ToolCalls {
			calls[c.ID]++
		}
		if m.Role == llm.RoleTool {
			results[m.ToolCallID]++
		}
	}
	for id, k := range calls {
		if k != 1 || results[id] != 1 {
			t.Errorf("call %s: %d calls, %d results; want one of each", id, k, results[id])
		}
	}
	for id := range results {
		if calls[id] == 0 {
			t.Errorf("result %s answers no call", id)
		}
	}
	if !wellFormed(s.Messages) {
		t.Error("the stored history is not in the shape a provider accepts")
	}
	if assistants != stepsTurns(n) {
		t.Errorf("%d assistant messages, want %d (one per turn of the script)", assistants, stepsTurns(n))
	}
	done, _, total := planning.Progress(s.Todos)
	if done != n || total != n {
		t.Errorf("todos %d/%d, want %d/%d: %v", done, total, n, n, s.Todos)
	}
	for i := 1; i <= n; i++ {
		if b, err := os.ReadFile(filepath.Join(workdir, fmt.Sprintf("step-%d.txt", i))); err != nil || strings.TrimSpace(string(b)) != fmt.Sprint(i) {
			t.Errorf("step-%d.txt: %q %v", i, b, err)
		}
	}
}

// sseLog is one client's event stream of a session, read in the background
// over a single connection.
type sseLog struct {
	mu     sync.Mutex
	events []map[string]any
	ended  bool
	change chan struct{}
}

// follow connects an event stream client to session id.
func (p *serveProc) follow(token, id string) *sseLog {
	p.t.Helper()
	req, _ := http.NewRequest("GET", p.url+"/api/sessions/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		p.t.Fatalf("events of %s: %d", id, resp.StatusCode)
	}
	l := &sseLog{change: make(chan struct{})}
	p.t.Cleanup(func() { resp.Body.Close() })
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var ev map[string]any
			if json.Unmarshal([]byte(data), &ev) != nil {
				continue
			}
			l.mu.Lock()
			l.events = append(l.events, ev)
			close(l.change)
			l.change = make(chan struct{})
			l.mu.Unlock()
		}
		l.mu.Lock()
		l.ended = true
		close(l.change)
		l.change = make(chan struct{})
		l.mu.Unlock()
	}()
	return l
}

// count is the number of events of typ (with status, when not "").
func (l *sseLog) count(typ, status string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, ev := range l.events {
		if ev["type"] == typ && (status == "" || ev["status"] == status) {
			n++
		}
	}
	return n
}

// find returns the events of typ received so far.
func (l *sseLog) find(typ string) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, ev := range l.events {
		if ev["type"] == typ {
			out = append(out, ev)
		}
	}
	return out
}

// wait waits until the stream holds k events of typ (and status).
func (l *sseLog) wait(t *testing.T, typ, status string, k int, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for {
		l.mu.Lock()
		ch, ended := l.change, l.ended
		l.mu.Unlock()
		if l.count(typ, status) >= k {
			return
		}
		if ended {
			t.Fatalf("the event stream ended before %d %s %s events: %v", k, typ, status, l.types())
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("no %d %s %s events within %v: %v", k, typ, status, within, l.types())
		}
	}
}

// types lists the events' types (with a done's status) for messages.
func (l *sseLog) types() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, ev := range l.events {
		s := fmt.Sprint(ev["type"])
		if st, ok := ev["status"]; ok && s == "done" {
			s += ":" + fmt.Sprint(st)
		}
		if msg, ok := ev["message"]; ok {
			s += ":" + fmt.Sprint(msg)
		}
		out = append(out, s)
	}
	return out
}

// answered checks that the stream carried a result for every call it
// announced, once.
func (l *sseLog) answered(t *testing.T) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	calls, results := map[string]int{}, map[string]int{}
	for _, ev := range l.events {
		switch ev["type"] {
		case "tool_call":
			calls[fmt.Sprint(ev["id"])]++
		case "tool_result":
			results[fmt.Sprint(ev["id"])]++
		}
	}
	for id, k := range calls {
		if k != 1 || results[id] != 1 {
			t.Errorf("stream: call %s announced %d times with %d results", id, k, results[id])
		}
	}
}

// serveSetup writes [serve] roots = [root] (keeping config.toml's other
// settings) and adds a token for root.
func serveSetup(t *testing.T, h *harness, root string) string {
	t.Helper()
	cfgPath := filepath.Join(h.home, "config.toml")
	cfg, _ := os.ReadFile(cfgPath)
	cfg = append(cfg, []byte("\n[serve]\nroots = [\""+root+"\"]\n")...)
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	r := h.run("", "serve", "token", "add", "ops", "--root", root)
	token := strings.TrimSpace(r.stdout)
	if r.code != 0 || !strings.HasPrefix(token, "h9_") {
		t.Fatalf("token add: %d %q %s", r.code, r.stdout, r.stderr)
	}
	return token
}

// planned creates k sessions in subdirectories of root, each planning
// with the prompt, follows each one's events and waits for its plan.
func planned(t *testing.T, s *serveProc, token, root string, k int) (ids, dirs []string, logs []*sseLog) {
	t.Helper()
	for i := range k {
		dir := filepath.Join(root, fmt.Sprintf("app%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		code, created := s.post(token, "/api/sessions", `{"workdir": "`+dir+`", "mode": "plan", "prompt": "carry out the steps"}`)
		if code != 201 {
			t.Fatalf("create: %d %v\n%s", code, created, s.logs)
		}
		id := created["id"].(string)
		ids, dirs = append(ids, id), append(dirs, dir)
		logs = append(logs, s.follow(token, id))
	}
	for _, l := range logs {
		l.wait(t, "done", "awaiting_approval", 1, 2*time.Minute)
	}
	return ids, dirs, logs
}
