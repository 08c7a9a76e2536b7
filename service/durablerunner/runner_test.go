package durablerunner_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/durable"
	"github.com/harness9/harness9/internal/lib/browsertest"
	"github.com/harness9/harness9/internal/lib/temporaltest"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/service"
	"github.com/harness9/harness9/service/durablerunner"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/sqlite"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// planTurns plan two steps, then execute them in two rounds: each writes
// a file and marks itself done.
func planTurns() []scripted.Turn {
	todo := func(a, b string) llm.ToolCall {
		return scripted.Call("todo_write", map[string]any{"todos": []map[string]string{
			{"id": "1", "content": "write a.txt", "status": a}, {"id": "2", "content": "write b.txt", "status": b}}})
	}
	return []scripted.Turn{
		{Text: "Plan ready.", Calls: scripted.Calls(scripted.Call("submit_plan", map[string]any{"title": "Two files",
			"content": "Write a and b.", "steps": []string{"write a.txt", "write b.txt"}}))},
		{Calls: scripted.Calls(scripted.Call("write_file", map[string]string{"path": "a.txt", "content": "a"}), todo("completed", "in_progress"))},
		{Text: "a.txt written."}, // the first round ends here
		{Calls: scripted.Calls(scripted.Call("write_file", map[string]string{"path": "b.txt", "content": "b"}), todo("completed", "completed"))},
		{Text: "Both files written."},
	}
}

// engines is the worker's side: engines on the shared store with the
// scripted model, each step on a fresh engine as on a real worker.
type engines struct {
	store session.Store
	model llm.Provider
}

func (e *engines) engine(ctx context.Context, id string, _ durable.Settings) (*agent.Engine, error) {
	s, err := e.store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	ws, err := tool.NewWorkspace(s.Workdir)
	if err != nil {
		return nil, err
	}
	return agent.New(e.model, agent.WithWorkspace(ws), agent.WithStore(e.store), agent.WithTools(builtin.All(ws)...),
		agent.WithSession(id))
}

// gated holds the model calls of the second execution round until gate
// closes (nil: none held), so a test can act while a worker is busy.
type gated struct {
	llm.Provider
	gate chan struct{}
}

func (g gated) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	if g.gate != nil && len(req.Messages) > 0 && req.Messages[len(req.Messages)-1].Content == planning.ExecContinuePrompt {
		select {
		case <-g.gate:
		case <-ctx.Done():
		}
	}
	return g.Provider.Stream(ctx, req)
}

// env is a Temporal dev server, a worker on a queue of the test's, a
// SQLite store and servers over a durable runner, with two roots and a
// token for each.
type env struct {
	t            *testing.T
	tc           client.Client
	store        session.Store
	queue        string
	rootA, rootB string
	tokA, tokB   string
	// gate holds the second execution round's model calls until closed.
	gate chan struct{}
}

func newEnv(t *testing.T, hold bool) *env { return newEnvWith(t, hold, planTurns()) }

// newEnvWith is newEnv with the model playing turns.
func newEnvWith(t *testing.T, hold bool, turns []scripted.Turn) *env {
	t.Helper()
	srv := temporaltest.Start(t)
	tc, err := client.Dial(client.Options{HostPort: srv.Address})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tc.Close)
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "harness9.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &env{t: t, tc: tc, store: st, queue: "test-" + strings.ReplaceAll(t.Name(), "/", "-"), rootA: realDir(t), rootB: realDir(t)}
	e.tokA, _ = service.NewToken()
	e.tokB, _ = service.NewToken()
	model := gated{Provider: scripted.NewHistory(turns...)}
	if hold {
		e.gate = make(chan struct{})
		model.gate = e.gate
	}
	w := durable.NewWorker(tc, e.queue, durable.NewActivities(durable.EnginesFunc((&engines{store: st, model: model}).engine)))
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return e
}

func realDir(t *testing.T) string {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// api is one server process's HTTP side.
type api struct {
	t   *testing.T
	srv *service.Server
	ts  *httptest.Server
}

// serve starts a server over a new durable runner (as a new serve process
// would); it shuts down when the test ends unless stopped earlier.
func (e *env) serve() *api {
	e.t.Helper()
	// Workflow runs continue as new after a few steps, so an execution
	// spans two runs and the event streams must follow across them.
	r := durablerunner.New(e.tc, e.store, e.queue, durablerunner.WithPoll(50*time.Millisecond),
		durablerunner.WithLimits(durablerunner.Limits{ContinueAfter: 4}))
	srv, err := service.New(r, e.store, []string{e.rootA, e.rootB}, service.WithTokens(
		service.Token{Name: "a", SHA256: service.HashToken(e.tokA), Roots: []string{e.rootA}},
		service.Token{Name: "b", SHA256: service.HashToken(e.tokB), Roots: []string{e.rootB}}))
	if err != nil {
		e.t.Fatal(err)
	}
	a := &api{t: e.t, srv: srv, ts: httptest.NewServer(srv.Handler())}
	e.t.Cleanup(a.stop)
	return a
}

func (a *api) stop() {
	if a.ts == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := a.srv.Shutdown(ctx); err != nil {
		a.t.Errorf("shutdown: %v", err)
	}
	a.ts.CloseClientConnections()
	a.ts.Close()
	a.ts = nil
}

func (a *api) do(method, path, token string, body any) (int, map[string]any) {
	a.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, a.ts.URL+path, rd)
	req.Header.Set("Authorization", "Bearer "+token)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

// until reads the session's event stream until an event of typ with the
// wanted fields, and returns the events seen.
func (a *api) until(id, token, typ string, want map[string]any) []map[string]any {
	a.t.Helper()
	return a.stream(id, token)(typ, want)
}

// stream opens the session's event stream (the server has opened the
// session when it answers) and returns a reader of it: it reads until an
// event of typ with the wanted fields and returns the events seen so far.
func (a *api) stream(id, token string) func(typ string, want map[string]any) []map[string]any {
	a.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	a.t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", a.ts.URL+"/api/sessions/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	a.t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 {
		a.t.Fatalf("events: %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	var seen []map[string]any
	return func(typ string, want map[string]any) []map[string]any {
		a.t.Helper()
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var ev map[string]any
			if err := json.Unmarshal([]byte(data), &ev); err != nil {
				a.t.Fatalf("not JSON: %s", data)
			}
			seen = append(seen, ev)
			match := ev["type"] == typ
			for k, v := range want {
				match = match && ev[k] == v
			}
			if match {
				return seen
			}
		}
		a.t.Fatalf("no %s %v event; saw %v", typ, want, seen)
		return nil
	}
}

func count(evs []map[string]any, typ string) int {
	n := 0
	for _, ev := range evs {
		if ev["type"] == typ {
			n++
		}
	}
	return n
}

// A plan made through one server waits in its workflow; that server goes
// away; two other servers (other processes, as far as the workflow can
// tell) approve it at the same instant: exactly one approval takes effect,
// the plan runs once on the worker, and the servers' event streams follow
// the execution to n/n.
func TestPlanApproveAcrossServersExactlyOnce(t *testing.T) {
	e := newEnv(t, true)
	first := e.serve()
	code, created := first.do("POST", "/api/sessions", e.tokA, map[string]any{"workdir": e.rootA, "mode": "plan", "prompt": "write two files"})
	if code != 201 {
		t.Fatalf("create: %d %v", code, created)
	}
	id := created["id"].(string)
	evs := first.until(id, e.tokA, "state", map[string]any{"status": "awaiting_approval", "running": false})
	if count(evs, "plan") != 1 || count(evs, "done") != 1 {
		t.Fatalf("the plan run's events: %v", evs)
	}
	if _, err := os.Stat(filepath.Join(e.rootA, "a.txt")); err == nil {
		t.Fatal("a.txt written before approval")
	}
	first.stop()

	b, c := e.serve(), e.serve()
	// Token B reaches nothing of root A's session on either server.
	for _, probe := range []struct{ method, path string }{
		{"GET", "/api/sessions/" + id}, {"POST", "/api/sessions/" + id + "/review"}, {"POST", "/api/sessions/" + id + "/cancel"},
		{"GET", "/api/sessions/" + id + "/events"}, {"POST", "/api/sessions/" + id + "/prompt"},
	} {
		var body any
		if probe.method == "POST" {
			body = map[string]any{"choice": "approve_auto", "prompt": "x"}
		}
		if code, _ := b.do(probe.method, probe.path, e.tokB, body); code != 404 && code != 400 {
			t.Errorf("token B: %s %s answered %d", probe.method, probe.path, code)
		}
	}
	if code, _ := b.do("POST", "/api/sessions", e.tokB, map[string]any{"workdir": e.rootA, "prompt": "x"}); code != 400 {
		t.Errorf("token B created a session in root A: %d", code)
	}
	if running, _ := durable.Running(context.Background(), e.tc, id); !running {
		t.Fatal("token B's probes ended the workflow")
	}

	codes := make([]int, 2)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, s := range []*api{b, c} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			codes[i], _ = s.do("POST", "/api/sessions/"+id+"/review", e.tokA, map[string]any{"choice": "approve_auto"})
		}()
	}
	close(start)
	wg.Wait()
	if !(codes[0] == 200 && codes[1] == 409 || codes[0] == 409 && codes[1] == 200) {
		t.Fatalf("two approvals answered %v; want one 200 and one 409", codes)
	}
	// The worker holds the second round; a server that took no part
	// (another replica, or one started after a crash) attaches to the
	// running workflow when a client opens the stream, replays its events
	// — the first round's from the run the workflow continued from — and
	// follows it to the end.
	d := e.serve()
	next := d.stream(id, e.tokA)
	close(e.gate)
	evs = next("done", map[string]any{"status": "completed"})
	if count(evs, "approved") != 1 {
		t.Fatalf("approved %d times in %v", count(evs, "approved"), evs)
	}
	// Round 2 ran in the run the first one continued as: the stream
	// carries both rounds and the last todo list is 2/2.
	var rounds []any
	var last map[string]any
	for _, ev := range evs {
		switch ev["type"] {
		case "exec_round":
			rounds = append(rounds, ev["round"])
		case "todos":
			last = ev
		}
	}
	if len(rounds) != 2 || rounds[1] != float64(2) || last == nil || len(last["items"].([]any)) != 2 {
		t.Fatalf("rounds %v, last todos %v; events %v", rounds, last, evs)
	}
	for _, it := range last["items"].([]any) {
		if it.(map[string]any)["status"] != "completed" {
			t.Fatalf("last todos %v", last)
		}
	}
	if runs := workflowRuns(t, e.tc, id); runs < 2 {
		t.Fatalf("the session's workflow has %d runs; the test wants the execution to continue as new", runs)
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if got, err := os.ReadFile(filepath.Join(e.rootA, f)); err != nil || len(got) != 1 {
			t.Errorf("%s: %q %v", f, got, err)
		}
	}
	st, err := e.store.LoadState(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if done, _, total := planning.Progress(st.Todos); done != 2 || total != 2 || st.Status != planning.StatusIdle {
		t.Fatalf("stored todos %d/%d, status %s", done, total, st.Status)
	}
	msgs, err := e.store.Messages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	results := map[string]int{}
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			results[m.ToolCallID]++
		}
	}
	for call, n := range results {
		if n != 1 {
			t.Errorf("call %s has %d results: a step ran twice", call, n)
		}
	}
	// A second approval of the executed plan is refused.
	if code, body := c.do("POST", "/api/sessions/"+id+"/review", e.tokA, map[string]any{"choice": "approve_auto"}); code != 409 {
		t.Fatalf("approving again: %d %v", code, body)
	}
}

// A reviewer approves a workflow's plan from the web page of a server
// that did not make the plan, in a real headless Chromium, and watches
// the todo counter reach n/n as the worker executes it.
func TestBrowserApprovesWorkflowPlan(t *testing.T) {
	ctx := browsertest.Start(t)
	e := newEnv(t, false)
	first := e.serve()
	code, created := first.do("POST", "/api/sessions", e.tokA, map[string]any{"workdir": e.rootA, "mode": "plan", "prompt": "write two files"})
	if code != 201 {
		t.Fatalf("create: %d %v", code, created)
	}
	id := created["id"].(string)
	first.until(id, e.tokA, "state", map[string]any{"status": "awaiting_approval", "running": false})
	first.stop()
	page := e.serve()

	err := chromedp.Do(ctx,
		chromedp.Navigate(page.ts.URL+"/s/"+id),
		chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), e.tokA),
		chromedp.Click(chromedp.ID("login")),
		chromedp.WaitVisible(chromedp.ID("plan-title")),
		chromedp.WaitEnabled(chromedp.ID("approve-auto")),
		chromedp.Click(chromedp.ID("approve-auto")),
	)
	if err != nil {
		t.Fatalf("log in, see the plan, approve: %v", err)
	}
	reached, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("todo-count").textContent === "2/2"`,
		chromedp.WithPollingInterval(50*time.Millisecond)))
	if err != nil || !reached {
		count, _ := chromedp.Run(ctx, chromedp.Text(chromedp.ID("todo-count")))
		t.Fatalf("after approving, the counter shows %q: %v", count, err)
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(e.rootA, f)); err != nil {
			t.Errorf("%s after approving in the browser: %v", f, err)
		}
	}
}

// workflowRuns counts the runs of the session's workflow.
func workflowRuns(t *testing.T, c client.Client, id string) int {
	t.Helper()
	resp, err := c.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
		Query: "WorkflowId = '" + durable.WorkflowID(id) + "'"})
	if err != nil {
		t.Fatal(err)
	}
	return len(resp.Executions)
}
