package harness_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/hook"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/permission"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/session/sqlite"
	"github.com/harness9/harness9/subagent"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/mcptool"
)

const secret = "PRIVATE-KEY-BYTES"

// world is a user: a home directory holding a key and harness9's data
// directory (their own instructions, a skill, a sub-agent), and a project
// (a git repository with instructions and a skill of its own).
type world struct {
	home, data, proj string
	store            *sqlite.Store
}

func newWorld(t *testing.T) world {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := world{home: filepath.Join(base, "home")}
	w.data = filepath.Join(w.home, "h9data") // HARNESS9_HOME set somewhere the home deny list does not cover
	w.proj = filepath.Join(w.home, "proj")
	files := map[string]string{
		filepath.Join(w.home, ".ssh", "id_rsa"):                                 secret,
		filepath.Join(w.data, "AGENTS.md"):                                      "USER-RULE: answer in English.",
		filepath.Join(w.data, "skills", "greet", "SKILL.md"):                    "---\nname: greet\ndescription: Greets people.\n---\nSay hello.",
		filepath.Join(w.data, "agents", "reviewer.md"):                          "---\nname: reviewer\ndescription: Reviews code.\ntools: [read_file]\n---\nReview.",
		filepath.Join(w.proj, ".git", "HEAD"):                                   "ref: refs/heads/main\n",
		filepath.Join(w.proj, "AGENTS.md"):                                      "PROJECT-RULE: use tabs.",
		filepath.Join(w.proj, tool.DataDirName, "skills", "deploy", "SKILL.md"): "---\nname: deploy\ndescription: Deploys.\n---\nRun make deploy.",
	}
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if w.store, err = sqlite.Open(filepath.Join(t.TempDir(), "harness9.db")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.store.Close() })
	return w
}

// options are what a program knows of the world's user.
func (w world) options(extra ...harness.Option) []harness.Option {
	return append([]harness.Option{harness.WithModel("m"), harness.WithHome(w.home), harness.WithDataDir(w.data),
		harness.WithStore(w.store), harness.WithEnv([]string{"PATH=" + os.Getenv("PATH")})}, extra...)
}

func run(t *testing.T, seq func(func(agent.Event) bool)) []agent.Event {
	t.Helper()
	var evs []agent.Event
	for ev := range seq {
		if r, ok := ev.(*agent.ApprovalRequest); ok {
			r.Respond(agent.AllowOnce, "")
		}
		evs = append(evs, ev)
	}
	return evs
}

func done(evs []agent.Event) agent.Done {
	d, _ := evs[len(evs)-1].(agent.Done)
	return d
}

func toolNames(r llm.Request) []string {
	var out []string
	for _, d := range r.Tools {
		out = append(out, d.Name)
	}
	return out
}

// One call gives what the CLI has: instructions of the project and the
// user in the system prompt, both skills, the file tools and bash, the
// sub-agents (built-in and the user's), compaction, the planning tools,
// and plan files in the repository once a plan is approved.
func TestNewAssemblesTheAgent(t *testing.T) {
	w := newWorld(t)
	p := scripted.New(
		scripted.Turn{Calls: scripted.Calls(scripted.Call("submit_plan", map[string]any{
			"title": "Tabs", "content": "Use tabs.", "steps": []string{"convert"}}))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("write_file", map[string]any{"path": "a.go", "content": "package a\n"}))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("todo_write", map[string]any{
			"todos": []map[string]any{{"id": "1", "content": "convert", "status": "completed"}}}))},
		scripted.Turn{Text: "done"},
	)
	a, err := harness.New(context.Background(), p, w.proj, w.options()...)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	eng, err := a.NewEngine(agent.WithMode(planning.ModePlan))
	if err != nil {
		t.Fatal(err)
	}
	if d := done(run(t, eng.Run(context.Background(), "use tabs"))); d.Status != agent.RunAwaitingApproval {
		t.Fatalf("plan run: %+v", d)
	}
	req := p.Requests()[0]
	for _, want := range []string{agent.DefaultSystemPrompt, "PROJECT-RULE", "USER-RULE", "greet", "deploy", w.proj} {
		if !strings.Contains(req.System, want) {
			t.Errorf("the system prompt lacks %q", want)
		}
	}
	if names := toolNames(req); !slices.Contains(names, "use_skill") || !slices.Contains(names, "submit_plan") || !slices.Contains(names, "task") {
		t.Errorf("Plan Mode tools = %v", names)
	}
	if !slices.ContainsFunc(a.Subagents(), func(d subagent.Definition) bool { return d.Name == "reviewer" }) {
		t.Errorf("sub-agents = %v", a.Subagents())
	}
	if d := done(run(t, eng.Approve(context.Background(), planning.ModeDefault))); d.Status != agent.RunCompleted {
		t.Fatalf("approve: %+v", d)
	}
	if b, err := os.ReadFile(filepath.Join(w.proj, "a.go")); err != nil || string(b) != "package a\n" {
		t.Errorf("a.go = %q, %v", b, err)
	}
	if eng.TaskDir() == "" || !strings.HasPrefix(eng.TaskDir(), filepath.Join(w.proj, tool.DataDirName, "tasks")) {
		t.Errorf("task dir = %q, want one in the repository", eng.TaskDir())
	}
	if _, err := os.Stat(filepath.Join(eng.TaskDir(), "PLAN.md")); err != nil {
		t.Error(err)
	}
	if names := toolNames(p.Requests()[1]); !slices.Contains(names, "write_file") || !slices.Contains(names, "bash") {
		t.Errorf("Default mode tools = %v", names)
	}
	// Compaction is on: /compact on a short history says there is nothing
	// to compact, not that there is no compactor.
	for ev := range eng.Compact(context.Background()) {
		if d, ok := ev.(agent.Done); ok && errors.Is(d.Err, agent.ErrNoCompactor) {
			t.Error("the engine has no compactor")
		}
	}
	// The session is in the store, as a later process finds it.
	if _, err := w.store.Get(context.Background(), eng.SessionID()); err != nil {
		t.Error(err)
	}
}

// The workspace refuses the home deny list and the data directory even
// when the workdir is the home directory itself: the key never reaches the
// model, nor do the user's own files.
func TestWorkspaceRefusesHomeSecretsAndDataDir(t *testing.T) {
	w := newWorld(t)
	p := scripted.New(
		scripted.Turn{Calls: scripted.Calls(
			scripted.Call("read_file", map[string]any{"path": ".ssh/id_rsa"}),
			scripted.Call("read_file", map[string]any{"path": "h9data/AGENTS.md"}),
			scripted.Call("bash", map[string]any{"command": "cat .ssh/id_rsa"}))},
		scripted.Turn{Text: "ok"},
	)
	a, err := harness.New(context.Background(), p, w.home, w.options()...)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	eng, err := a.NewEngine()
	if err != nil {
		t.Fatal(err)
	}
	evs := run(t, eng.Run(context.Background(), "read the key"))
	last := p.Requests()[len(p.Requests())-1]
	for _, m := range last.Messages {
		if strings.Contains(m.Content, secret) {
			t.Errorf("the key reached the model: %q", m.Content)
		}
	}
	var results []agent.ToolResult
	for _, ev := range evs {
		if r, ok := ev.(agent.ToolResult); ok {
			results = append(results, r)
		}
	}
	if len(results) != 3 || !results[0].IsError || !results[1].IsError {
		t.Errorf("reading the key and the data directory: %+v", results)
	}
}

// Hooks, permission rules and MCP servers come from the options: a
// pre_tool_use hook blocks a write (the file stays unwritten), a deny
// rule hides bash, and an MCP server's tool is offered and runs.
func TestHooksPermissionsAndMCP(t *testing.T) {
	w := newWorld(t)
	rules := permission.New(w.proj)
	if err := rules.Add(permission.Deny, "test", "bash"); err != nil {
		t.Fatal(err)
	}
	p := scripted.New(
		scripted.Turn{Calls: scripted.Calls(
			scripted.Call("write_file", map[string]any{"path": "blocked.txt", "content": "x"}),
			scripted.Call("mcp__helper__echo", map[string]any{"message": "hi"}))},
		scripted.Turn{Text: "ok"},
	)
	a, err := harness.New(context.Background(), p, w.proj, w.options(
		harness.WithPermissions(rules, nil),
		harness.WithHooks([]hook.Hook{{Event: hook.PreToolUse, Matcher: "write_file", Command: "echo 'no writes here' >&2; exit 2", Source: "test"}},
			hook.WithUnconfined(true)),
		harness.WithMCP(map[string]mcptool.ServerConfig{"helper": {Command: os.Args[0], Env: map[string]string{helperEnv: "serve"}}}),
	)...)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if st := a.MCP().Status(); len(st) != 1 || !st[0].Connected {
		t.Fatalf("MCP status = %+v", st)
	}
	eng, err := a.NewEngine()
	if err != nil {
		t.Fatal(err)
	}
	evs := run(t, eng.Run(context.Background(), "write and echo"))
	names := toolNames(p.Requests()[0])
	if slices.Contains(names, "bash") || !slices.Contains(names, "mcp__helper__echo") {
		t.Errorf("tools = %v", names)
	}
	var results []agent.ToolResult
	for _, ev := range evs {
		if r, ok := ev.(agent.ToolResult); ok {
			results = append(results, r)
		}
	}
	if len(results) != 2 || !results[0].IsError || !strings.Contains(results[0].Output, "no writes here") ||
		results[1].IsError || !strings.Contains(results[1].Output, "Echo: hi") {
		t.Fatalf("results = %+v", results)
	}
	if _, err := os.Stat(filepath.Join(w.proj, "blocked.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the blocked write happened: %v", err)
	}
}

// The kernel sandbox confines bash to the workdir; WithoutSandbox leaves
// none.
func TestSandbox(t *testing.T) {
	w := newWorld(t)
	a, err := harness.New(context.Background(), scripted.New(), w.proj, w.options(harness.WithoutSandbox())...)
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	if a.Sandbox() != nil {
		t.Error("WithoutSandbox gave a sandbox")
	}
	if !sandbox.Probe().Available {
		t.Skip("no kernel sandbox here: " + sandbox.Probe().Reason)
	}
	outside := filepath.Join(w.home, "outside.txt")
	p := scripted.New(
		scripted.Turn{Calls: scripted.Calls(scripted.Call("bash", map[string]any{"command": "echo x > " + outside + "; echo y > inside.txt"}))},
		scripted.Turn{Text: "ok"},
	)
	a, err = harness.New(context.Background(), p, w.proj, w.options()...)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	eng, err := a.NewEngine()
	if err != nil {
		t.Fatal(err)
	}
	run(t, eng.Run(context.Background(), "write"))
	if _, err := os.Stat(outside); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("bash wrote outside the workdir: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.proj, "inside.txt")); err != nil {
		t.Errorf("bash could not write the workdir: %v", err)
	}
}

// What the caller must fix is a ConfigError.
func TestConfigError(t *testing.T) {
	_, err := harness.New(context.Background(), scripted.New(), filepath.Join(t.TempDir(), "missing"))
	var ce *harness.ConfigError
	if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "workdir: ") {
		t.Errorf("New of a missing workdir = %v", err)
	}
	if _, err := harness.New(context.Background(), nil, t.TempDir()); err == nil {
		t.Error("New without a provider succeeded")
	}
}

// SetProvider changes the provider and model of the engines opened next.
func TestSetProvider(t *testing.T) {
	w := newWorld(t)
	first, second := scripted.New(scripted.Turn{Text: "one"}), scripted.New(scripted.Turn{Text: "two"})
	a, err := harness.New(context.Background(), first, w.proj, w.options()...)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.SetProvider(second, "m2")
	eng, err := a.NewEngine()
	if err != nil {
		t.Fatal(err)
	}
	run(t, eng.Run(context.Background(), "hi"))
	if len(first.Requests()) != 0 || len(second.Requests()) != 1 || second.Requests()[0].Model != "m2" {
		t.Errorf("requests: first %d, second %+v", len(first.Requests()), second.Requests())
	}
}
