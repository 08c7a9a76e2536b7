package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/session/sqlite"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// harness is one test's world: a git-like workdir (plans land inside it), a
// harness9 home, a real SQLite store and a scripted provider.
type harness struct {
	t      *testing.T
	dir    string
	home   string
	dbPath string
	store  *sqlite.Store
	p      *scripted.Provider
	extra  []tool.Tool
	clock  time.Time
	sbOpts []sandbox.Option // for bash's sandbox
	// bashOpts are more options of bash; wsHome, when set, is the home
	// directory the workspace's deny list is anchored at (h.home if not).
	bashOpts []builtin.BashOption
	wsHome   string
}

func newHarness(t *testing.T, turns ...scripted.Turn) *harness {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, dir: dir, home: t.TempDir(), p: scripted.New(turns...),
		clock: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	h.dbPath = filepath.Join(t.TempDir(), "harness9.db")
	h.store = h.open()
	return h
}

// open opens (another handle on) the test's database.
func (h *harness) open() *sqlite.Store {
	h.t.Helper()
	st, err := sqlite.Open(h.dbPath)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { _ = st.Close() })
	return st
}

func (h *harness) tools() []tool.Tool {
	h.t.Helper()
	home := h.home
	if h.wsHome != "" {
		home = h.wsHome
	}
	ws, err := tool.NewWorkspace(h.dir, tool.WithHome(home))
	if err != nil {
		h.t.Fatal(err)
	}
	sb, err := sandbox.New(h.dir, append([]sandbox.Option{sandbox.WithDeny(ws.DenyList()...)}, h.sbOpts...)...)
	if err != nil {
		h.t.Fatal(err)
	}
	return append(builtin.All(ws, append([]builtin.BashOption{builtin.WithSandbox(sb)}, h.bashOpts...)...), h.extra...)
}

// engine builds an engine on the harness; opts come after the defaults.
func (h *harness) engine(opts ...agent.Option) *agent.Engine {
	h.t.Helper()
	base := []agent.Option{
		agent.WithModel("test-model"),
		agent.WithWorkdir(h.dir),
		agent.WithPlanFiles(h.home),
		agent.WithStore(h.store),
		agent.WithTools(h.tools()...),
		agent.WithClock(func() time.Time { return h.clock }),
	}
	e, err := agent.New(h.p, append(base, opts...)...)
	if err != nil {
		h.t.Fatal(err)
	}
	return e
}

// messages reads a session's history through a fresh store handle, as a
// later process would.
func (h *harness) messages(id string) []llm.Message {
	h.t.Helper()
	msgs, err := h.open().Messages(context.Background(), id)
	if err != nil {
		h.t.Fatal(err)
	}
	return msgs
}

func (h *harness) file(rel string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(h.dir, rel))
	return string(b), err == nil
}

// drain collects a whole stream and checks its framing: SessionStarted
// first (unless the call failed before starting), Done last and only once.
// It allows every call put to the user (once), like a user who says yes;
// the requests stay in the returned events.
func drain(t *testing.T, seq func(func(agent.Event) bool)) []agent.Event {
	t.Helper()
	var evs []agent.Event
	for ev := range seq {
		if req, ok := ev.(*agent.ApprovalRequest); ok {
			req.Respond(agent.AllowOnce, "")
		}
		evs = append(evs, ev)
	}
	checkFraming(t, evs)
	return evs
}

func checkFraming(t *testing.T, evs []agent.Event) {
	t.Helper()
	if len(evs) == 0 {
		t.Fatal("empty event stream")
	}
	for i, ev := range evs {
		if _, ok := ev.(agent.Done); ok && i != len(evs)-1 {
			t.Fatalf("Done at %d of %d events", i, len(evs))
		}
	}
	if _, ok := evs[len(evs)-1].(agent.Done); !ok {
		t.Fatalf("last event is %T, want Done", evs[len(evs)-1])
	}
}

func doneOf(evs []agent.Event) agent.Done {
	return evs[len(evs)-1].(agent.Done)
}

func wantDone(t *testing.T, evs []agent.Event, want agent.RunStatus) agent.Done {
	t.Helper()
	d := doneOf(evs)
	if d.Status != want {
		t.Fatalf("Done.Status = %s (err %v), want %s; events:\n%s", d.Status, d.Err, want, dump(evs))
	}
	return d
}

func dump(evs []agent.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		switch e := ev.(type) {
		case agent.TextDelta, agent.ReasoningDelta:
			continue
		case agent.ToolResult:
			b.WriteString("  tool_result " + e.Name + ": " + firstLine(e.Output) + "\n")
		default:
			b.WriteString("  " + ev.Type() + "\n")
		}
	}
	return b.String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func ofType[T agent.Event](evs []agent.Event) []T {
	var out []T
	for _, ev := range evs {
		if e, ok := ev.(T); ok {
			out = append(out, e)
		}
	}
	return out
}

func resultsOf(evs []agent.Event) []agent.ToolResult { return ofType[agent.ToolResult](evs) }

func todo(id, content string, st planning.TodoStatus) planning.TodoItem {
	return planning.TodoItem{ID: id, Content: content, Status: st}
}

func todoCall(items ...planning.TodoItem) llm.ToolCall {
	return scripted.Call(planning.TodoWriteName, map[string]any{"todos": items})
}

func write(path, content string) llm.ToolCall {
	return scripted.Call("write_file", map[string]any{"path": path, "content": content})
}

func read(path string) llm.ToolCall {
	return scripted.Call("read_file", map[string]any{"path": path})
}

func toolNames(r llm.Request) []string {
	names := make([]string, len(r.Tools))
	for i, d := range r.Tools {
		names[i] = d.Name
	}
	return names
}
