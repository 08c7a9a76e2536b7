package mcptool

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harness9/harness9/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectServer connects the in-process server s as "srv".
func connectServer(t *testing.T, s *mcp.Server, opts ...Option) *Manager {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	m, err := Connect(context.Background(), nil, append(opts, WithTransport("srv", ct))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	if st := m.Status(); !st[0].Connected {
		t.Fatalf("not connected: %+v", st)
	}
	return m
}

// waitFor polls cond until it holds; the deadline only ends a test that
// would otherwise hang, it asserts nothing about speed.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// A tool the server adds after a call (and one it removes) reaches Tools
// once its tools/list_changed notification was followed; a tool that
// stays keeps its object's name and the new one works.
func TestToolListChangedIsFollowed(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "dyn", Version: "1"}, nil)
	var extraCalls atomic.Int32
	mcp.AddTool(s, &mcp.Tool{Name: "stay", Description: "stays"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return textResult("here"), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "enable", Description: "adds a tool"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		mcp.AddTool(s, &mcp.Tool{Name: "extra", Description: "new"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			extraCalls.Add(1)
			return textResult("extra ran"), nil, nil
		})
		s.RemoveTools("enable")
		return textResult("enabled"), nil, nil
	})
	m := connectServer(t, s)
	gen := m.Generation()
	tools := toolsByName(m)
	if tools["mcp__srv__extra"] != nil || tools["mcp__srv__enable"] == nil {
		t.Fatalf("tools before: %v", names(m))
	}
	if res := run(t, tools["mcp__srv__enable"], `{}`); res.Output != "enabled" {
		t.Fatalf("enable = %+v", res)
	}
	waitFor(t, "the new tool list", func() bool {
		return toolsByName(m)["mcp__srv__extra"] != nil && toolsByName(m)["mcp__srv__enable"] == nil
	})
	if m.Generation() == gen {
		t.Error("the generation did not move with the tools")
	}
	if got := names(m); !slices.Equal(got, []string{"mcp__srv__extra", "mcp__srv__stay"}) {
		t.Errorf("tools after = %v", got)
	}
	if res := run(t, toolsByName(m)["mcp__srv__extra"], `{}`); res.Output != "extra ran" || extraCalls.Load() != 1 {
		t.Errorf("extra = %+v (server saw %d calls)", res, extraCalls.Load())
	}
	if st := m.Status()[0]; !slices.Contains(st.Tools, "mcp__srv__extra") {
		t.Errorf("status tools = %v", st.Tools)
	}
}

func names(m *Manager) []string {
	var out []string
	for _, t := range m.Tools() {
		out = append(out, t.Name())
	}
	return out
}

type elicitOut struct {
	Action string         `json:"action"`
	Values map[string]any `json:"values"`
}

// askingServer has a tool that asks the user for a name and a colour and
// returns what it got.
func askingServer(readOnly bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "ask", Version: "1"}, nil)
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name":   map[string]any{"type": "string", "title": "Name", "description": "Your name"},
			"colour": map[string]any{"type": "string", "enum": []any{"red", "blue"}, "default": "red"},
			"count":  map[string]any{"type": "integer", "minimum": 1, "maximum": 5},
			"ok":     map[string]any{"type": "boolean"},
		},
		"required": []any{"name"},
	}
	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "asks", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: readOnly}},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			// The multi round-trip form; the SDK's server sends it as an
			// elicitation/create request to clients of older protocols.
			if len(req.Params.InputResponses) == 0 {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
					"who": &mcp.ElicitParams{Message: "Who are you?", RequestedSchema: schema}}}, nil, nil
			}
			res := req.Params.InputResponses["who"].(*mcp.ElicitResult)
			b, _ := json.Marshal(elicitOut{Action: res.Action, Values: res.Content})
			return textResult(string(b)), nil, nil
		})
	return s
}

func decodeElicit(t *testing.T, res tool.Result) elicitOut {
	t.Helper()
	var out elicitOut
	if err := json.Unmarshal([]byte(res.Output), &out); err != nil {
		t.Fatalf("tool result %q: %v", res.Output, err)
	}
	return out
}

// A server's request for input goes to the user of the call that is
// running (the Asker in its context) as a form of typed fields, and the
// answer goes back to the server; without anyone to ask it is declined,
// or answered by the WithElicitation fallback.
func TestElicitationGoesToTheCallsUser(t *testing.T) {
	m := connectServer(t, askingServer(false))
	ask := toolsByName(m)["mcp__srv__ask"]
	var got tool.Question
	ctx := tool.ContextWithAsker(context.Background(), func(_ context.Context, q tool.Question) (tool.Answer, error) {
		got = q
		return tool.Answer{Action: tool.Accept, Values: map[string]any{"name": "Ada", "colour": "blue", "count": int64(3)}}, nil
	})
	res, err := ask.Execute(ctx, json.RawMessage(`{}`))
	if err != nil || res.IsError {
		t.Fatalf("ask = %+v, %v", res, err)
	}
	out := decodeElicit(t, res)
	if out.Action != "accept" || out.Values["name"] != "Ada" || out.Values["colour"] != "blue" || out.Values["count"] != float64(3) {
		t.Errorf("the server got %+v", out)
	}
	if got.From != "MCP server srv" || got.Message != "Who are you?" || got.ReadOnly || got.URL != "" {
		t.Errorf("question = %+v", got)
	}
	var fields []string
	for _, f := range got.Fields {
		fields = append(fields, fmt.Sprintf("%s:%s:%v", f.Name, f.Kind, f.Required))
	}
	if want := []string{"name:string:true", "colour:choice:false", "count:integer:false", "ok:boolean:false"}; !slices.Equal(fields, want) {
		t.Errorf("fields = %v, want %v", fields, want)
	}
	if c := got.Fields[1]; c.Default != "red" || len(c.Options) != 2 || c.Options[1].Value != "blue" {
		t.Errorf("choice field = %+v", c)
	}
	if n := got.Fields[2]; n.Min == nil || *n.Min != 1 || n.Max == nil || *n.Max != 5 {
		t.Errorf("integer field bounds = %+v", n)
	}

	// Nobody to ask: declined.
	res = run(t, ask, `{}`)
	if out := decodeElicit(t, res); out.Action != "decline" || len(out.Values) != 0 {
		t.Errorf("unanswered question gave the server %+v", out)
	}

	// The fallback answers for a headless program.
	var from string
	m2 := connectServer(t, askingServer(true), WithElicitation(func(_ context.Context, server string, q tool.Question) (tool.Answer, error) {
		from = server
		if !q.ReadOnly {
			t.Error("a server whose every tool is read-only asks a read-only question")
		}
		return tool.Answer{Action: tool.Cancel}, nil
	}))
	if out := decodeElicit(t, run(t, toolsByName(m2)["mcp__srv__ask"], `{}`)); out.Action != "cancel" || from != "srv" {
		t.Errorf("fallback: server got %+v, fallback saw server %q", out, from)
	}
}

// A run that ends while the user is being asked cancels the question.
func TestElicitationOfAnEndedRunIsCancelled(t *testing.T) {
	m := connectServer(t, askingServer(false))
	ctx := tool.ContextWithAsker(context.Background(), func(context.Context, tool.Question) (tool.Answer, error) {
		return tool.Answer{}, context.Canceled
	})
	res, _ := toolsByName(m)["mcp__srv__ask"].Execute(ctx, json.RawMessage(`{}`))
	if out := decodeElicit(t, res); out.Action != "cancel" {
		t.Errorf("server got %+v", out)
	}
}

// Progress notifications of a call reach that call's output.
func TestProgressReachesTheCall(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "p", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "reports progress"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		tok := req.Params.GetProgressToken()
		if tok == nil {
			return textResult("no token"), nil, nil
		}
		for i := 1; i <= 2; i++ {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 2, Message: fmt.Sprintf("step\n%d", i)})
		}
		return textResult("done"), nil, nil
	})
	m := connectServer(t, s)
	var mu sync.Mutex
	var out strings.Builder
	ctx := tool.ContextWithProgress(context.Background(), func(s string) { mu.Lock(); out.WriteString(s); mu.Unlock() })
	res, err := toolsByName(m)["mcp__srv__slow"].Execute(ctx, json.RawMessage(`{}`))
	if err != nil || res.Output != "done" {
		t.Fatalf("slow = %+v, %v", res, err)
	}
	waitFor(t, "the second progress line", func() bool { mu.Lock(); defer mu.Unlock(); return strings.Contains(out.String(), "[2/2]") })
	mu.Lock()
	defer mu.Unlock()
	if want := "[1/2] step 1\n[2/2] step 2\n"; out.String() != want {
		t.Errorf("progress output = %q, want %q", out.String(), want)
	}
	// A call nobody watches sends no token.
	if res := run(t, toolsByName(m)["mcp__srv__slow"], `{}`); res.Output != "no token" {
		t.Errorf("unwatched call = %+v", res)
	}
}

// The server learns its roots: the directories WithRoots names.
func TestRootsAreOffered(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "r", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "roots", Description: "lists roots"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if len(req.Params.InputResponses) == 0 {
			//lint:ignore SA1019 roots are what this test is about
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}}, nil, nil
		}
		var uris []string
		//lint:ignore SA1019 roots are what this test is about
		for _, r := range req.Params.InputResponses["roots"].(*mcp.ListRootsResult).Roots {
			uris = append(uris, r.URI)
		}
		return textResult(strings.Join(uris, ",")), nil, nil
	})
	dir := t.TempDir()
	m := connectServer(t, s, WithRoots(dir))
	if res := run(t, toolsByName(m)["mcp__srv__roots"], `{}`); res.Output != "file://"+dir {
		t.Errorf("roots = %+v, want file://%s", res, dir)
	}
}

// Prompts are listed with their arguments, called by position and by
// name, and rendered as the user's prompt.
func TestPrompts(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "p", Version: "1"}, nil)
	s.AddPrompt(&mcp.Prompt{Name: "weather", Description: "Ask about the weather", Arguments: []*mcp.PromptArgument{
		{Name: "city", Required: true}, {Name: "state"},
	}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		a := req.Params.Arguments
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: fmt.Sprintf("Weather in %s (%s)?", a["city"], a["state"])}},
			{Role: "user", Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "note://1", Text: "take ```care```"}}},
		}}, nil
	})
	m := connectServer(t, s)
	ps := m.Prompts()
	if len(ps) != 1 || ps[0].Command != "mcp__srv__weather" || ps[0].Usage() != "/mcp__srv__weather <city> [state]" {
		t.Fatalf("prompts = %+v", ps)
	}
	if st := m.Status()[0]; !slices.Equal(st.Prompts, []string{"/mcp__srv__weather"}) {
		t.Errorf("status prompts = %v", st.Prompts)
	}
	p, ok := m.FindPrompt("mcp__srv__weather")
	if !ok {
		t.Fatal("FindPrompt")
	}
	args, err := p.ParseArgs(`"New York" state=NY`)
	if err != nil {
		t.Fatal(err)
	}
	e, err := m.GetPrompt(context.Background(), p, args)
	if err != nil {
		t.Fatal(err)
	}
	want := "Weather in New York (NY)?\n\n<resource uri=\"note://1\">\n````\ntake ```care```\n````\n</resource>"
	if e.Text != want {
		t.Errorf("prompt text = %q, want %q", e.Text, want)
	}
}

func TestParseArgs(t *testing.T) {
	p := Prompt{Command: "mcp__s__p", Arguments: []PromptArgument{{Name: "a", Required: true}, {Name: "b"}}}
	for _, tc := range []struct {
		line string
		want map[string]string
		err  string
	}{
		{"x", map[string]string{"a": "x"}, ""},
		{"x y z", map[string]string{"a": "x", "b": "y z"}, ""},
		{"b=2 x", map[string]string{"a": "x", "b": "2"}, ""},
		{"a=1 b=2", map[string]string{"a": "1", "b": "2"}, ""},
		{"'one two' three", map[string]string{"a": "one two", "b": "three"}, ""},
		{"c=3", map[string]string{"a": "c=3"}, ""},
		{"", nil, "missing a; usage: /mcp__s__p <a> [b]"},
		{"b=2", nil, "missing a"},
		{`"open`, nil, "unclosed"},
	} {
		got, err := p.ParseArgs(tc.line)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: err = %v, want %q", tc.line, err, tc.err)
		case tc.err == "" && (err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want)):
			t.Errorf("%q = %v, %v; want %v", tc.line, got, err, tc.want)
		}
	}
	none := Prompt{Command: "mcp__s__q"}
	if _, err := none.ParseArgs("x"); err == nil {
		t.Error("a prompt without arguments took one")
	}
}

// Resources and templates are listed; a resource, and a template's URI
// filled in, are read.
func TestResources(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "r", Version: "1"}, nil)
	s.AddResource(&mcp.Resource{URI: "doc://readme", Name: "readme", MIMEType: "text/markdown"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: "# Hello"}}}, nil
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "doc://item/{id}", Name: "item"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Blob: []byte{0, 1, 2}, MIMEType: "application/octet-stream"}}}, nil
	})
	m := connectServer(t, s)
	rs := m.Resources(context.Background())
	if len(rs) != 2 || rs[0].URI != "doc://readme" || rs[0].Template || rs[1].URI != "doc://item/{id}" || !rs[1].Template {
		t.Fatalf("resources = %+v", rs)
	}
	c, err := m.ReadResource(context.Background(), "srv", "doc://readme")
	if err != nil || len(c) != 1 || c[0].Text != "# Hello" || c[0].Blob != nil {
		t.Errorf("readme = %+v, %v", c, err)
	}
	c, err = m.ReadResource(context.Background(), "srv", "doc://item/7")
	if err != nil || len(c) != 1 || len(c[0].Blob) != 3 || c[0].URI != "doc://item/7" {
		t.Errorf("item = %+v, %v", c, err)
	}
	if _, err := m.ReadResource(context.Background(), "nope", "doc://readme"); err == nil {
		t.Error("a resource of an unknown server was read")
	}
}
