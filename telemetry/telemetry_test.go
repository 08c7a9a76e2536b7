package telemetry_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/permission"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/session/sqlite"
	"github.com/harness9/harness9/subagent"
	"github.com/harness9/harness9/telemetry"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// Secrets the model, the user and the files say; none may reach telemetry
// unless content is recorded.
const (
	secretPrompt = "SECRET-PROMPT-7f3a"
	secretFile   = "SECRET-FILE-91bc"
	secretModel  = "SECRET-MODEL-5d20"
	secretChild  = "SECRET-CHILD-0e44"
	secretOutput = "SECRET-OUTPUT-aa17"
)

// world is an engine with telemetry recorded in memory.
type world struct {
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
	tel    *telemetry.Telemetry
	eng    *agent.Engine
	p      *scripted.Provider
	dir    string
}

func newWorld(t *testing.T, content bool, turns ...scripted.Turn) *world {
	t.Helper()
	w := &world{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader(), p: scripted.New(turns...)}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(w.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(w.reader))
	tel, err := telemetry.New(telemetry.WithTracerProvider(tp), telemetry.WithMeterProvider(mp), telemetry.WithContent(content),
		telemetry.WithSandbox("landlock"),
		telemetry.WithPrices(func(m string) (llm.Price, bool) { return llm.Price{Input: 2, Output: 8}, m == "scripted/test-model" }))
	if err != nil {
		t.Fatal(err)
	}
	w.tel = tel
	w.dir = t.TempDir()
	if err := os.Mkdir(filepath.Join(w.dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.dir, "a.txt"), []byte(secretFile+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := tool.NewWorkspace(w.dir, tool.WithHome(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(w.dir, sandbox.WithDeny(ws.DenyList()...))
	if err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	rules := permission.New(w.dir)
	if err := rules.Add(permission.Deny, "test", "bash(rm:*)"); err != nil {
		t.Fatal(err)
	}
	w.eng, err = agent.New(tel.Provider(w.p), agent.WithModel("test-model"), agent.WithWorkspace(ws), agent.WithStore(store),
		agent.WithTools(builtin.All(ws, builtin.WithSandbox(sb))...), agent.WithSubagents(subagent.Builtins()),
		agent.WithPermissions(rules), agent.WithMode(planning.ModePlan), agent.WithObserver(tel))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func drain(t *testing.T, seq func(func(agent.Event) bool), want agent.RunStatus) {
	t.Helper()
	var last agent.Event
	for ev := range seq {
		last = ev
	}
	if d, ok := last.(agent.Done); !ok || d.Status != want {
		t.Fatalf("run ended %+v, want %s", last, want)
	}
}

func bash(cmd string) llm.ToolCall { return scripted.Call("bash", map[string]any{"command": cmd}) }

// planScript plans (reading a file, asking a sub-agent, a writer refused
// by Plan Mode's gate) and, once approved, executes (a command that fails
// with exit code 3, one a deny rule refuses, one that works).
func planScript() []scripted.Turn {
	u := llm.Usage{InputTokens: 1000, OutputTokens: 100, CacheReadTokens: 400}
	return []scripted.Turn{
		{Text: secretModel, Usage: u, Calls: scripted.Calls(scripted.Call("read_file", map[string]any{"path": "a.txt"}),
			scripted.Call(subagent.ToolName, map[string]any{"description": "look", "prompt": secretPrompt + " child", "agent": subagent.Explore}))},
		{Text: secretChild, Usage: u}, // the sub-agent's answer
		{Calls: scripted.Calls(bash("echo x > " + secretOutput)), Usage: u},
		{Calls: scripted.Calls(scripted.Call(planning.SubmitPlanName, map[string]any{"title": secretModel, "content": secretModel, "steps": []string{"one"}})), Usage: u},
		// Execution.
		{Calls: scripted.Calls(bash("echo " + secretOutput + "; exit 3")), Usage: u},
		{Calls: scripted.Calls(bash("rm -f a.txt")), Usage: u},
		{Calls: scripted.Calls(bash("echo ok > done.txt")), Usage: u},
		{Calls: scripted.Calls(scripted.Call(planning.TodoWriteName, map[string]any{"todos": []planning.TodoItem{{ID: "1", Content: "one", Status: planning.TodoCompleted}}})), Usage: u},
		{Text: "done", Usage: u},
	}
}

func TestTraceOfAPlannedSession(t *testing.T) {
	w := newWorld(t, false, planScript()...)
	root := sdktrace.NewTracerProvider(sdktrace.WithSyncer(w.spans)).Tracer("test")
	ctx, rootSpan := root.Start(context.Background(), "user request")
	drain(t, w.eng.Run(ctx, secretPrompt), agent.RunAwaitingApproval)
	drain(t, w.eng.Approve(ctx, planning.ModeDefault), agent.RunCompleted)
	rootSpan.End()

	spans := w.spans.GetSpans()
	tree := newTree(spans)
	for _, s := range spans {
		if s.SpanContext.TraceID() != rootSpan.SpanContext().TraceID() {
			t.Errorf("span %s is in another trace", s.Name)
		}
	}
	runs := tree.named("invoke_agent harness9")
	if len(runs) != 2 {
		t.Fatalf("%d invoke_agent harness9 spans, want 2 (plan, execution):\n%s", len(runs), tree)
	}
	plan, exec := runs[0], runs[1]
	for _, r := range runs {
		if tree.parent(r) == nil || tree.parent(r).Name != "user request" {
			t.Errorf("%s is not a child of the caller's span", r.Name)
		}
		wantAttr(t, r, "gen_ai.operation.name", "invoke_agent")
		wantAttr(t, r, "gen_ai.conversation.id", w.eng.SessionID())
		wantAttr(t, r, "gen_ai.provider.name", "scripted")
		wantAttr(t, r, "gen_ai.request.model", "test-model")
	}
	wantAttr(t, plan, "harness9.run.status", "awaiting_approval")
	wantAttr(t, plan, "harness9.mode", "plan")
	wantAttr(t, exec, "harness9.run.status", "completed")
	wantEvents(t, plan, "plan_submitted")
	wantEvents(t, exec, "plan_approved", "exec_round")

	// The plan run: four chat spans (the sub-agent's is its own), the tools.
	chats := tree.children(plan, "chat test-model")
	if len(chats) != 3 {
		t.Errorf("%d chat spans under the plan run, want 3:\n%s", len(chats), tree)
	}
	for _, c := range tree.named("chat test-model") {
		wantAttr(t, c, "gen_ai.operation.name", "chat")
		wantAttr(t, c, "gen_ai.usage.input_tokens", int64(1000))
		wantAttr(t, c, "gen_ai.usage.output_tokens", int64(100))
		wantAttr(t, c, "gen_ai.usage.cache_read.input_tokens", int64(400))
		if _, ok := attr(c, "gen_ai.response.time_to_first_chunk"); !ok {
			t.Errorf("%s has no time to first chunk", c.Name)
		}
		if v, _ := attr(c, "gen_ai.response.finish_reasons"); v == nil {
			t.Errorf("%s has no finish reasons", c.Name)
		}
	}
	read := one(t, tree.children(plan, "execute_tool read_file"))
	wantAttr(t, read, "gen_ai.tool.name", "read_file")
	wantAttr(t, read, "harness9.tool.decision", "allowed")
	wantAttr(t, read, "harness9.sandbox.policy", "read-only")
	wantAttr(t, read, "harness9.sandbox", "landlock")
	refused := one(t, tree.children(plan, "execute_tool bash"))
	wantAttr(t, refused, "harness9.tool.refused", true)
	wantAttr(t, refused, "error.type", "tool_error")
	task := one(t, tree.children(plan, "execute_tool task"))
	child := one(t, tree.children(task, "invoke_agent explore"))
	wantAttr(t, child, "gen_ai.agent.name", "explore")
	wantAttr(t, child, "harness9.parent_session", w.eng.SessionID())
	one(t, tree.children(child, "chat test-model"))

	// The execution: exit code, denial, success.
	bashes := tree.children(exec, "execute_tool bash")
	if len(bashes) != 3 {
		t.Fatalf("%d bash spans in the execution, want 3:\n%s", len(bashes), tree)
	}
	wantAttr(t, bashes[0], "harness9.tool.exit_code", int64(3))
	wantAttr(t, bashes[0], "harness9.sandbox.policy", "workspace-write")
	wantAttr(t, bashes[1], "harness9.tool.decision", "denied")
	wantAttr(t, bashes[1], "harness9.tool.rule", "bash(rm:*)")
	wantAttr(t, bashes[2], "harness9.tool.exit_code", int64(0))
	wantAttr(t, bashes[2], "harness9.tool.decision", "allowed")

	// Nothing anybody said or read is in the trace.
	for _, s := range spans {
		text := spanText(s)
		for _, secret := range []string{secretPrompt, secretFile, secretModel, secretChild, secretOutput} {
			if strings.Contains(text, secret) {
				t.Errorf("span %s holds %s: %s", s.Name, secret, text)
			}
		}
	}

	m := collect(t, w.reader)
	wantSum(t, m, "harness9.sessions", nil, 1)
	wantSum(t, m, "harness9.turns", nil, 9)
	wantSum(t, m, "harness9.tokens", map[string]string{"gen_ai.token.type": "input"}, 9000)
	wantSum(t, m, "harness9.tokens", map[string]string{"gen_ai.token.type": "cache_read"}, 3600)
	wantSum(t, m, "harness9.tool.calls", map[string]string{"gen_ai.tool.name": "bash", "harness9.tool.decision": "denied"}, 1)
	wantSum(t, m, "harness9.tool.calls", map[string]string{"gen_ai.tool.name": "bash", "harness9.tool.outcome": "error"}, 3)
	wantSum(t, m, "harness9.tool.calls", map[string]string{"gen_ai.tool.name": "bash", "harness9.tool.outcome": "ok"}, 1)
	wantSum(t, m, "harness9.sandbox.refusals", map[string]string{"gen_ai.tool.name": "bash"}, 1)
	wantSum(t, m, "harness9.plans", map[string]string{"harness9.plan.outcome": "submitted"}, 1)
	wantSum(t, m, "harness9.plans", map[string]string{"harness9.plan.outcome": "approved"}, 1)
	wantSum(t, m, "harness9.cost", nil, 9*(1000*2+100*8)/1e6)
}

// With content recorded, the prompt and the tools' arguments and output are
// on the spans.
func TestContentOnlyWhenAsked(t *testing.T) {
	w := newWorld(t, true, scripted.Turn{Calls: scripted.Calls(scripted.Call("read_file", map[string]any{"path": "a.txt"}))},
		scripted.Turn{Text: secretModel})
	drain(t, w.eng.Run(context.Background(), secretPrompt), agent.RunCompleted)
	var all strings.Builder
	for _, s := range w.spans.GetSpans() {
		all.WriteString(spanText(s))
	}
	for _, secret := range []string{secretPrompt, secretFile, secretModel} {
		if !strings.Contains(all.String(), secret) {
			t.Errorf("%s is not in the trace with content on", secret)
		}
	}
}

// tree indexes spans by id.
type tree struct {
	spans []tracetest.SpanStub
	byID  map[string]tracetest.SpanStub
}

func newTree(spans tracetest.SpanStubs) *tree {
	t := &tree{spans: spans, byID: map[string]tracetest.SpanStub{}}
	for _, s := range spans {
		t.byID[s.SpanContext.SpanID().String()] = s
	}
	return t
}

func (t *tree) parent(s tracetest.SpanStub) *tracetest.SpanStub {
	p, ok := t.byID[s.Parent.SpanID().String()]
	if !ok {
		return nil
	}
	return &p
}

func (t *tree) named(name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range t.spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	sortByStart(out)
	return out
}

func (t *tree) children(of tracetest.SpanStub, name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range t.named(name) {
		if s.Parent.SpanID() == of.SpanContext.SpanID() {
			out = append(out, s)
		}
	}
	return out
}

func (t *tree) String() string {
	var b strings.Builder
	for _, s := range t.spans {
		b.WriteString("  " + s.Name + " (parent " + s.Parent.SpanID().String() + ", id " + s.SpanContext.SpanID().String() + ")\n")
	}
	return b.String()
}

func sortByStart(s []tracetest.SpanStub) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].StartTime.Before(s[j-1].StartTime); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func one(t *testing.T, s []tracetest.SpanStub) tracetest.SpanStub {
	t.Helper()
	if len(s) != 1 {
		t.Fatalf("%d spans, want 1", len(s))
	}
	return s[0]
}

func attr(s tracetest.SpanStub, key string) (any, bool) {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value.AsInterface(), true
		}
	}
	return nil, false
}

func wantAttr(t *testing.T, s tracetest.SpanStub, key string, want any) {
	t.Helper()
	got, ok := attr(s, key)
	if !ok || got != want {
		t.Errorf("%s: %s = %v (%v), want %v", s.Name, key, got, ok, want)
	}
}

func wantEvents(t *testing.T, s tracetest.SpanStub, names ...string) {
	t.Helper()
	for _, n := range names {
		found := false
		for _, e := range s.Events {
			found = found || e.Name == n
		}
		if !found {
			t.Errorf("%s has no %s event", s.Name, n)
		}
	}
}

// spanText is everything a span says: name, attributes, events, status.
func spanText(s tracetest.SpanStub) string {
	var b strings.Builder
	b.WriteString(s.Name + " " + s.Status.Description)
	add := func(kvs []attribute.KeyValue) {
		for _, kv := range kvs {
			b.WriteString(" " + string(kv.Key) + "=" + kv.Value.String())
		}
	}
	add(s.Attributes)
	for _, e := range s.Events {
		b.WriteString(" " + e.Name)
		add(e.Attributes)
	}
	return b.String()
}

func collect(t *testing.T, r *sdkmetric.ManualReader) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

// wantSum checks the sum of a counter over the points whose attributes
// include match.
func wantSum(t *testing.T, rm metricdata.ResourceMetrics, name string, match map[string]string, want float64) {
	t.Helper()
	var got float64
	found := false
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			found = true
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					if matches(p.Attributes, match) {
						got += float64(p.Value)
					}
				}
			case metricdata.Sum[float64]:
				for _, p := range d.DataPoints {
					if matches(p.Attributes, match) {
						got += p.Value
					}
				}
			}
		}
	}
	if !found || abs(got-want) > 1e-9 {
		b, _ := json.Marshal(rm.ScopeMetrics)
		t.Errorf("%s%v = %v (found %v), want %v\n%.2000s", name, match, got, found, want, b)
	}
}

func matches(set attribute.Set, match map[string]string) bool {
	for k, v := range match {
		got, ok := set.Value(attribute.Key(k))
		if !ok || got.String() != v {
			return false
		}
	}
	return true
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
