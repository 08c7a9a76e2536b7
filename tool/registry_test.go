package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/tool"
)

type echoIn struct {
	Text  string `json:"text" jsonschema:"text to echo"`
	Times int    `json:"times,omitempty"`
}

func echoTool() tool.Tool {
	return tool.New("echo", "echoes", func(_ context.Context, in echoIn) (tool.Result, error) {
		return tool.Text(strings.Repeat(in.Text, max(in.Times, 1))), nil
	}, tool.AsReadOnly())
}

// denyGate hides and refuses every tool named in deny.
type denyGate map[string]bool

func (g denyGate) Visible(name string) bool { return !g[name] }
func (g denyGate) Check(name string, _ json.RawMessage) error {
	if g[name] {
		return errors.New(name + " is not allowed in this mode")
	}
	return nil
}

func call(name, input string) llm.ToolCall {
	return llm.ToolCall{ID: "c1", Name: name, Input: json.RawMessage(input)}
}

func newReg(t *testing.T, opts ...tool.RegistryOption) *tool.Registry {
	t.Helper()
	r := tool.NewRegistry(opts...)
	if err := r.Register(echoTool()); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRegisterDuplicateRefused(t *testing.T) {
	r := newReg(t)
	if err := r.Register(echoTool()); err == nil || !strings.Contains(err.Error(), `"echo" is already registered`) {
		t.Fatalf("duplicate registration: got %v", err)
	}
	if n := len(r.Tools()); n != 1 {
		t.Fatalf("tools = %d, want 1", n)
	}
}

func TestExecuteErrorsBecomeResults(t *testing.T) {
	r := newReg(t)
	must := func(t *testing.T, res tool.Result, want string) {
		t.Helper()
		if !res.IsError || !strings.Contains(res.Output, want) {
			t.Fatalf("got %+v, want error containing %q", res, want)
		}
	}
	t.Run("unknown tool", func(t *testing.T) {
		must(t, r.Execute(context.Background(), nil, call("nope", `{}`)), `unknown tool "nope". Available tools: echo`)
	})
	t.Run("malformed JSON", func(t *testing.T) {
		must(t, r.Execute(context.Background(), nil, call("echo", `{"text": "a"`)), "not valid JSON")
	})
	t.Run("wrong type", func(t *testing.T) {
		must(t, r.Execute(context.Background(), nil, call("echo", `{"text": 3}`)), `field "text" must be a string`)
	})
	t.Run("unknown field", func(t *testing.T) {
		must(t, r.Execute(context.Background(), nil, call("echo", `{"txt": "a"}`)), `unknown field "txt"`)
	})
	t.Run("gate refuses", func(t *testing.T) {
		must(t, r.Execute(context.Background(), denyGate{"echo": true}, call("echo", `{"text":"a"}`)), "not allowed in this mode")
	})
	t.Run("ok", func(t *testing.T) {
		res := r.Execute(context.Background(), nil, call("echo", `{"text":"ab","times":2}`))
		if res.IsError || res.Output != "abab" {
			t.Fatalf("got %+v", res)
		}
	})
}

func TestGateHidesDefinitions(t *testing.T) {
	r := newReg(t)
	if defs := r.Definitions(denyGate{"echo": true}); len(defs) != 0 {
		t.Fatalf("hidden tool still defined: %+v", defs)
	}
	defs := r.Definitions(nil)
	if len(defs) != 1 || defs[0].Name != "echo" {
		t.Fatalf("defs = %+v", defs)
	}
	var schema map[string]any
	if err := json.Unmarshal(defs[0].InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	req, _ := schema["required"].([]any)
	if len(req) != 1 || req[0] != "text" {
		t.Fatalf("required = %v, want [text]", schema["required"])
	}
}

func TestPanicAndGoErrorAndTimeout(t *testing.T) {
	r := tool.NewRegistry(tool.WithTimeout(50 * time.Millisecond))
	type none struct{}
	_ = r.Register(
		tool.New("boom", "panics", func(context.Context, none) (tool.Result, error) { panic("kaput") }),
		tool.New("fail", "errors", func(context.Context, none) (tool.Result, error) { return tool.Result{}, errors.New("disk on fire") }),
		tool.New("slow", "waits", func(ctx context.Context, _ none) (tool.Result, error) {
			<-ctx.Done()
			return tool.Result{}, ctx.Err()
		}),
	)
	for name, want := range map[string]string{
		"boom": "panic: kaput",
		"fail": "fail failed: disk on fire",
		"slow": "slow timed out after 50ms",
	} {
		res := r.Execute(context.Background(), nil, call(name, `{}`))
		if !res.IsError || !strings.Contains(res.Output, want) {
			t.Errorf("%s: got %+v, want error containing %q", name, res, want)
		}
	}
}

func TestCancelledContextReported(t *testing.T) {
	r := tool.NewRegistry()
	type none struct{}
	_ = r.Register(tool.New("wait", "waits", func(ctx context.Context, _ none) (tool.Result, error) {
		<-ctx.Done()
		return tool.Result{}, ctx.Err()
	}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := r.Execute(ctx, nil, call("wait", `{}`))
	if !res.IsError || !strings.Contains(res.Output, "cancelled") {
		t.Fatalf("got %+v", res)
	}
}

func TestOutputCapped(t *testing.T) {
	r := newReg(t, tool.WithMaxOutput(1000))
	res := r.Execute(context.Background(), nil, call("echo", `{"text":"line of text\n","times":1000}`))
	if len(res.Output) > 1100 || !strings.Contains(res.Output, "cut from the middle") {
		t.Fatalf("output not capped: %d bytes", len(res.Output))
	}
	if !strings.HasPrefix(res.Output, "line of text\n") || !strings.HasSuffix(res.Output, "line of text\n") {
		t.Fatalf("head or tail lost: %q...", res.Output[:40])
	}
}

func TestExecuteBatchConcurrentReadOnlyKeepsOrder(t *testing.T) {
	var inFlight, peak atomic.Int32
	release := make(chan struct{})
	type in struct {
		N int `json:"n"`
	}
	r := tool.NewRegistry()
	_ = r.Register(tool.New("look", "read-only", func(_ context.Context, v in) (tool.Result, error) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		if n == 3 {
			close(release)
		}
		select { // a sequential registry would never release: fail instead of hanging
		case <-release:
		case <-time.After(10 * time.Second):
		}
		inFlight.Add(-1)
		return tool.Text(strings.Repeat("x", v.N)), nil
	}, tool.AsReadOnly()))
	calls := []llm.ToolCall{call("look", `{"n":1}`), call("look", `{"n":2}`), call("look", `{"n":3}`)}
	res := r.ExecuteBatch(context.Background(), nil, calls)
	for i, rr := range res {
		if rr.Output != strings.Repeat("x", i+1) {
			t.Fatalf("result %d = %q: order lost", i, rr.Output)
		}
	}
	if peak.Load() != 3 {
		t.Fatalf("peak concurrency %d, want 3", peak.Load())
	}
}

type status string

func (status) JSONSchemaEnum() []string { return []string{"open", "closed"} }

func TestSchemaEnum(t *testing.T) {
	type item struct {
		S status `json:"s"`
	}
	type input struct {
		Items []item `json:"items,omitempty"`
	}
	s := string(tool.SchemaFor[input]())
	if !strings.Contains(s, `"enum":["open","closed"]`) {
		t.Fatalf("schema has no enum: %s", s)
	}
	if !strings.Contains(s, `"items":{"type":"array"`) || strings.Contains(s, `"null"`) {
		t.Fatalf("slice should be a plain array type: %s", s)
	}
}

func TestTruncate(t *testing.T) {
	if got := tool.Truncate("short", 100); got != "short" {
		t.Fatalf("got %q", got)
	}
	long := strings.Repeat("a", 5000)
	got := tool.Truncate(long, 500)
	if len(got) > 600 || !strings.Contains(got, "bytes (0 lines) cut") {
		t.Fatalf("got %d bytes: %q", len(got), got[300:])
	}
}

// A tool that ignores its context must not hold the run loop hostage.
func TestToolIgnoringItsContextIsAbandoned(t *testing.T) {
	stuck := make(chan struct{})
	defer close(stuck)
	type none struct{}
	r := tool.NewRegistry(tool.WithTimeout(20*time.Millisecond), tool.WithAbandonGrace(20*time.Millisecond))
	_ = r.Register(tool.New("stuck", "never looks at ctx", func(context.Context, none) (tool.Result, error) {
		<-stuck
		return tool.Text("too late"), nil
	}))
	res := r.Execute(context.Background(), nil, call("stuck", `{}`))
	if !res.IsError || !strings.Contains(res.Output, "timed out after 20ms and did not stop") {
		t.Fatalf("got %+v", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res = r.Execute(ctx, nil, call("stuck", `{}`))
	if !res.IsError || !strings.Contains(res.Output, "was cancelled and did not stop") {
		t.Fatalf("cancelled: got %+v", res)
	}
}

func TestTruncateKeepsUTF8Whole(t *testing.T) {
	s := strings.Repeat("é", 3000) // two bytes each, no newlines
	for max := 300; max < 320; max++ {
		if got := tool.Truncate(s, max); !utf8.ValidString(got) {
			t.Fatalf("max %d: truncated output is not valid UTF-8", max)
		}
	}
}

func named(name string) tool.Tool {
	return tool.New(name, name, func(context.Context, struct{}) (tool.Result, error) { return tool.Text(name), nil })
}

func registered(r *tool.Registry) string {
	var out []string
	for _, t := range r.Tools() {
		out = append(out, t.Name())
	}
	return strings.Join(out, ",")
}

// Replace swaps a group of tools in one step, in the group's place; a
// name another tool keeps is refused and nothing changes.
func TestReplace(t *testing.T) {
	r := tool.NewRegistry()
	if err := r.Register(named("a"), named("m1"), named("m2"), named("z")); err != nil {
		t.Fatal(err)
	}
	if err := r.Replace([]string{"m1", "m2"}, named("m2"), named("m3")); err != nil {
		t.Fatal(err)
	}
	if got := registered(r); got != "a,m2,m3,z" {
		t.Errorf("after replace: %s", got)
	}
	if _, ok := r.Lookup("m1"); ok {
		t.Error("m1 still looked up")
	}
	if res := r.Execute(context.Background(), nil, call("m3", `{}`)); res.Output != "m3" {
		t.Errorf("m3 = %+v", res)
	}
	if err := r.Replace([]string{"m2"}, named("a")); err == nil || registered(r) != "a,m2,m3,z" {
		t.Errorf("a taken name was accepted (%v): %s", err, registered(r))
	}
	if err := r.Replace(nil, named("n")); err != nil || registered(r) != "a,m2,m3,z,n" {
		t.Errorf("adding with nothing removed: %v, %s", err, registered(r))
	}
}
