package agent_test

import (
	"context"
	"errors"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
)

func TestMultiTurnToolUse(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Text: "I'll create it.", Calls: scripted.Calls(write("notes/hello.txt", "hello\n")),
			Usage: llm.Usage{InputTokens: 100, OutputTokens: 20}},
		scripted.Turn{Calls: scripted.Calls(read("notes/hello.txt")), Match: scripted.LastToolResultContains("")},
		scripted.Turn{Text: "Done: notes/hello.txt says hello.", Match: scripted.LastToolResultContains("hello")},
	)
	eng := h.engine()
	evs := drain(t, eng.Run(context.Background(), "Create notes/hello.txt\nwith a greeting"))
	wantDone(t, evs, agent.RunCompleted)

	start, ok := evs[0].(agent.SessionStarted)
	if !ok || start.SessionID == "" || start.Workdir != eng.Workdir() || start.Mode != planning.ModeDefault {
		t.Fatalf("first event = %#v", evs[0])
	}
	if got, _ := h.file("notes/hello.txt"); got != "hello\n" {
		t.Errorf("file = %q", got)
	}
	// Events of one tool call come in order: ToolCall, then ToolResult.
	var order []string
	for _, ev := range evs {
		switch ev.(type) {
		case agent.Text, agent.ToolCall, agent.ToolResult, agent.UsageUpdate:
			order = append(order, ev.Type())
		}
	}
	want := "text usage tool_call tool_result usage tool_call tool_result text usage"
	if strings.Join(order, " ") != want {
		t.Errorf("event order = %s\nwant %s", strings.Join(order, " "), want)
	}
	if u := ofType[agent.UsageUpdate](evs)[0]; u.ContextTokens != 120 || u.ContextWindow != llm.ContextWindow("test-model") {
		t.Errorf("usage update = %+v", u)
	}
	if deltas := ofType[agent.TextDelta](evs); len(deltas) < 2 {
		t.Errorf("text arrived in %d deltas; the scripted provider streams in chunks", len(deltas))
	}

	msgs := h.messages(eng.SessionID())
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		roles[i] = string(m.Role)
	}
	if got := strings.Join(roles, " "); got != "user assistant tool assistant tool assistant" {
		t.Fatalf("stored roles = %s", got)
	}
	if msgs[1].ToolCalls[0].ID != msgs[2].ToolCallID || msgs[2].Name != "write_file" {
		t.Errorf("tool result not linked to its call: %+v / %+v", msgs[1].ToolCalls, msgs[2])
	}
	sess, err := h.open().Get(context.Background(), eng.SessionID())
	if err != nil {
		t.Fatal(err)
	}
	if sess.Title != "Create notes/hello.txt" || sess.Model != "scripted/test-model" || sess.Workdir != h.dir {
		t.Errorf("session = %+v", sess)
	}
	if len(eng.History()) != 6 {
		t.Errorf("History has %d messages", len(eng.History()))
	}
	// The system prompt and the tool list reach the model.
	req := h.p.Requests()[0]
	if !strings.Contains(req.System, "harness9") || req.Model != "test-model" {
		t.Errorf("request system/model = %q / %q", req.System, req.Model)
	}
	if names := strings.Join(toolNames(req), ","); !strings.Contains(names, "write_file") || !strings.Contains(names, "todo_write") || strings.Contains(names, "submit_plan") {
		t.Errorf("Default-mode tools = %s", names)
	}
}

func TestResumeContinuesTheConversation(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Text: "Hi."},
		scripted.Turn{Text: "You said hello.", Match: func(r llm.Request) bool { return len(r.Messages) == 3 }},
	)
	first := h.engine()
	wantDone(t, drain(t, first.Run(context.Background(), "hello")), agent.RunCompleted)

	second := h.engine(agent.WithSession(first.SessionID()[:8]))
	if second.SessionID() != first.SessionID() || len(second.History()) != 2 {
		t.Fatalf("resumed %q with %d messages", second.SessionID(), len(second.History()))
	}
	wantDone(t, drain(t, second.Run(context.Background(), "what did I say?")), agent.RunCompleted)
	if n := len(h.messages(first.SessionID())); n != 4 {
		t.Errorf("stored %d messages, want 4", n)
	}
	if _, err := agent.New(h.p, agent.WithStore(h.store), agent.WithSession("nonexistent")); err == nil {
		t.Error("resuming an unknown session succeeded")
	}
}

func TestMaxTurns(t *testing.T) {
	loop := scripted.Turn{Text: "again", Calls: scripted.Calls(scripted.Call("list_files", nil))}
	h := newHarness(t, loop, loop, loop)
	eng := h.engine(agent.WithMaxTurns(2))
	wantDone(t, drain(t, eng.Run(context.Background(), "loop forever")), agent.RunMaxTurns)
	if h.p.Remaining() != 1 {
		t.Errorf("the model was called %d times, want 2", 3-h.p.Remaining())
	}
	if n := len(h.messages(eng.SessionID())); n != 5 {
		t.Errorf("stored %d messages, want 5 (prompt + 2 × call/result)", n)
	}
	if eng.Status() != planning.StatusIdle {
		t.Errorf("status = %s", eng.Status())
	}
}

func TestCancelMidStream(t *testing.T) {
	full := strings.Repeat("word ", 40)
	h := newHarness(t, scripted.Turn{Text: full, ChunkSize: 10, Calls: scripted.Calls(read("x"))})
	eng := h.engine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var evs []agent.Event
	for ev := range eng.Run(ctx, "talk") {
		evs = append(evs, ev)
		if _, ok := ev.(agent.TextDelta); ok {
			cancel()
		}
	}
	checkFraming(t, evs)
	d := wantDone(t, evs, agent.RunCancelled)
	if !errors.Is(d.Err, context.Canceled) {
		t.Errorf("Done.Err = %v", d.Err)
	}
	msgs := h.messages(eng.SessionID())
	if len(msgs) != 2 || msgs[1].Role != llm.RoleAssistant {
		t.Fatalf("stored %+v", msgs)
	}
	if got := msgs[1].Content; got == "" || len(got) >= len(full) || len(msgs[1].ToolCalls) != 0 {
		t.Errorf("partial answer = %q with %d calls", got, len(msgs[1].ToolCalls))
	}
}

func TestCancelMidTool(t *testing.T) {
	h := newHarness(t, scripted.Turn{Calls: scripted.Calls(
		scripted.Call("bash", map[string]any{"command": "touch started && sleep 60"}),
		write("after.txt", "never"),
	)})
	eng := h.engine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for {
			if _, ok := h.file("started"); ok {
				cancel()
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	evs := drain(t, eng.Run(ctx, "run it"))
	wantDone(t, evs, agent.RunCancelled)
	if _, ok := h.file("after.txt"); ok {
		t.Error("a call after the cancelled one ran")
	}
	msgs := h.messages(eng.SessionID())
	if len(msgs) != 4 {
		t.Fatalf("stored %d messages, want prompt, call message and two results", len(msgs))
	}
	for _, m := range msgs[2:] {
		if m.Role != llm.RoleTool || !m.IsError || !strings.Contains(m.Content, "cancelled") {
			t.Errorf("result = %+v, want a cancelled error", m)
		}
	}
}

func TestToolFailuresGoBackToTheModel(t *testing.T) {
	panicky := tool.New("explode", "panics", func(context.Context, struct{}) (tool.Result, error) {
		panic("kaboom")
	})
	cases := []struct {
		name string
		call llm.ToolCall
		want string
	}{
		{"panic", scripted.Call("explode", nil), "panic: kaboom"},
		{"unknown tool", scripted.Call("teleport", nil), `unknown tool "teleport"`},
		{"malformed arguments", scripted.Call("read_file", `{"path": `), "not valid JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t,
				scripted.Turn{Calls: scripted.Calls(c.call)},
				scripted.Turn{Text: "recovered", Match: scripted.LastToolResultContains(c.want)},
			)
			h.extra = []tool.Tool{panicky}
			eng := h.engine()
			evs := drain(t, eng.Run(context.Background(), "try"))
			wantDone(t, evs, agent.RunCompleted)
			res := resultsOf(evs)
			if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Output, c.want) {
				t.Fatalf("results = %+v", res)
			}
			msgs := h.messages(eng.SessionID())
			if len(msgs) != 4 || !msgs[2].IsError || msgs[3].Content != "recovered" {
				t.Errorf("stored = %+v", msgs)
			}
		})
	}
}

func TestProviderError(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Text: "Looking", Calls: scripted.Calls(scripted.Call("list_files", nil))},
		scripted.Turn{Text: "half an ans", Err: errors.New("503 service unavailable")},
	)
	eng := h.engine()
	evs := drain(t, eng.Run(context.Background(), "please"))
	d := wantDone(t, evs, agent.RunError)
	if d.Err == nil || !strings.Contains(d.Err.Error(), "503") {
		t.Errorf("Done.Err = %v", d.Err)
	}
	errs := ofType[agent.Error](evs)
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "503") {
		t.Errorf("Error events = %+v", errs)
	}
	// The half answer streamed before the failure is not the model's
	// turn: nothing of it is stored (a Ctrl+C keeps it, TestCancelMidStream).
	msgs := h.messages(eng.SessionID())
	if len(msgs) != 3 || msgs[0].Content != "please" || msgs[2].Role != llm.RoleTool {
		t.Errorf("stored = %+v", msgs)
	}
}

func TestConsumerBreakStopsTheRun(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Text: "first", Calls: scripted.Calls(scripted.Call("list_files", nil))},
		scripted.Turn{Text: "second"},
		scripted.Turn{Text: "next run"},
	)
	eng := h.engine()
	for ev := range eng.Run(context.Background(), "go") {
		if _, ok := ev.(agent.ToolCall); ok {
			break
		}
	}
	if h.p.Remaining() != 2 {
		t.Errorf("the loop went on after the consumer left: %d turns left", h.p.Remaining())
	}
	msgs := h.messages(eng.SessionID())
	if len(msgs) != 3 || msgs[2].Role != llm.RoleTool {
		t.Fatalf("stored = %+v, want the call answered", msgs)
	}
	wantDone(t, drain(t, eng.Run(context.Background(), "again")), agent.RunCompleted)
}

func TestSecondRunWhileBusy(t *testing.T) {
	h := newHarness(t, scripted.Turn{Text: "slow", Hang: true})
	eng := h.engine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for ev := range eng.Run(ctx, "one") {
		if _, ok := ev.(agent.TextDelta); ok {
			evs := drain(t, eng.Run(context.Background(), "two"))
			d := wantDone(t, evs, agent.RunError)
			if !errors.Is(d.Err, agent.ErrBusy) {
				t.Errorf("Done.Err = %v", d.Err)
			}
			cancel()
		}
	}
}

func TestNoStoreKeepsHistoryInMemory(t *testing.T) {
	p := scripted.New(scripted.Turn{Text: "ok"})
	eng, err := agent.New(p, agent.WithWorkdir(t.TempDir()), agent.WithPlanFiles(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	wantDone(t, drain(t, eng.Run(context.Background(), "hi")), agent.RunCompleted)
	if eng.SessionID() == "" || len(eng.History()) != 2 {
		t.Errorf("id %q, history %+v", eng.SessionID(), eng.History())
	}
}

func TestDuplicateToolIsAnError(t *testing.T) {
	dup := tool.New(planning.TodoWriteName, "mine", func(context.Context, struct{}) (tool.Result, error) { return tool.Text(""), nil })
	if _, err := agent.New(scripted.New(), agent.WithTools(dup)); err == nil {
		t.Error("a tool named todo_write was accepted")
	}
}

func TestPlanFilesLandInTheWorkdir(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "look around", planning.TodoPending)))},
		scripted.Turn{Text: "ok"},
	)
	eng := h.engine()
	wantDone(t, drain(t, eng.Run(context.Background(), "plan")), agent.RunCompleted)
	pf := eng.PlanFile()
	if !strings.HasPrefix(pf, filepath.Join(h.dir, ".harness9", "plans")) {
		t.Fatalf("plan file %q is not under the workdir's .harness9/plans", pf)
	}
	if b, err := os.ReadFile(pf); err != nil || !strings.Contains(string(b), "look around") {
		t.Errorf("plan file: %q, %v", b, err)
	}
}

func TestReadOnlyCallsRunConcurrently(t *testing.T) {
	// Each call waits until both have started, so they finish only if the
	// engine runs them at the same time; results still come in call order.
	var started sync.WaitGroup
	started.Add(2)
	meet := tool.New("meet", "waits for its twin", func(ctx context.Context, in struct {
		Name string `json:"name"`
	}) (tool.Result, error) {
		started.Done()
		waited := make(chan struct{})
		go func() { started.Wait(); close(waited) }()
		select {
		case <-waited:
			return tool.Text("met " + in.Name), nil
		case <-ctx.Done():
			return tool.Errorf("ran alone"), nil
		}
	}, tool.AsReadOnly())
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(scripted.Call("meet", map[string]string{"name": "a"}), scripted.Call("meet", map[string]string{"name": "b"}))},
		scripted.Turn{Text: "both met"},
	)
	h.extra = []tool.Tool{meet}
	eng := h.engine(agent.WithToolTimeout(time.Minute))
	evs := drain(t, eng.Run(context.Background(), "meet"))
	wantDone(t, evs, agent.RunCompleted)
	res := resultsOf(evs)
	if len(res) != 2 || res[0].Output != "met a" || res[1].Output != "met b" {
		t.Fatalf("results = %+v", res)
	}
}

// panicProvider panics inside Stream, a bug in the engine's own path.
type panicProvider struct{ scripted.Provider }

func (*panicProvider) Stream(context.Context, llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(func(llm.Chunk, error) bool) { panic("provider bug") }
}

func TestPanicInTheLoopEndsWithErrorAndSavesState(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "survive", planning.TodoPending)))},
		scripted.Turn{Text: "noted"},
	)
	first := h.engine()
	wantDone(t, drain(t, first.Run(context.Background(), "remember")), agent.RunCompleted)

	eng, err := agent.New(&panicProvider{}, agent.WithStore(h.store), agent.WithSession(first.SessionID()),
		agent.WithWorkdir(h.dir), agent.WithPlanFiles(h.home))
	if err != nil {
		t.Fatal(err)
	}
	evs := drain(t, eng.Run(context.Background(), "crash"))
	d := wantDone(t, evs, agent.RunError)
	if d.Err == nil || !strings.Contains(d.Err.Error(), "provider bug") {
		t.Errorf("Done.Err = %v", d.Err)
	}
	if eng.Status() != planning.StatusIdle {
		t.Errorf("status after a panic = %s", eng.Status())
	}
	again := h.engine(agent.WithSession(first.SessionID()))
	if todos := again.Todos(); len(todos) != 1 {
		t.Errorf("todos after a panic = %+v", todos)
	}
	if msgs := again.History(); msgs[len(msgs)-1].Content != "crash" {
		t.Errorf("the prompt of the crashed run was not stored: %+v", msgs[len(msgs)-1])
	}
}

func TestToolEndTurnStopsWithoutAnotherModelCall(t *testing.T) {
	stop := tool.New("handoff", "ends the turn", func(context.Context, struct{}) (tool.Result, error) {
		return tool.Result{Output: "handed off", EndTurn: true}, nil
	})
	h := newHarness(t, scripted.Turn{Calls: scripted.Calls(scripted.Call("handoff", nil))}, scripted.Turn{Text: "never"})
	h.extra = []tool.Tool{stop}
	eng := h.engine()
	wantDone(t, drain(t, eng.Run(context.Background(), "hand off")), agent.RunCompleted)
	if h.p.Remaining() != 1 || eng.Status() != planning.StatusIdle {
		t.Errorf("remaining %d, status %s", h.p.Remaining(), eng.Status())
	}
}

// A session started in one workdir is not resumed by an engine working in
// another: its history and plan speak of the first directory's files.
func TestResumeRefusesASessionOfAnotherWorkdir(t *testing.T) {
	h := newHarness(t, scripted.Turn{Text: "hello"})
	first := h.engine()
	wantDone(t, drain(t, first.Run(context.Background(), "hi")), agent.RunCompleted)
	id := first.SessionID()

	other := t.TempDir()
	_, err := agent.New(h.p, agent.WithModel("test-model"), agent.WithStore(h.store),
		agent.WithWorkdir(other), agent.WithPlanFiles(h.home), agent.WithSession(id))
	var wderr *agent.WorkdirError
	if !errors.Is(err, agent.ErrOtherWorkdir) || !errors.As(err, &wderr) ||
		wderr.SessionWorkdir != h.dir || wderr.Workdir != other {
		t.Fatalf("resume in another workdir: err = %v, want a WorkdirError naming %s", err, h.dir)
	}

	// The same directory through a symlink is the same workdir.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(h.dir, link); err != nil {
		t.Fatal(err)
	}
	if _, err := agent.New(h.p, agent.WithModel("test-model"), agent.WithStore(h.store),
		agent.WithWorkdir(link), agent.WithPlanFiles(h.home), agent.WithSession(id)); err != nil {
		t.Fatalf("resume through a symlink to the workdir: %v", err)
	}
}
