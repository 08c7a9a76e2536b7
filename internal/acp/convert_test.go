package acp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
)

func TestPlanEntries(t *testing.T) {
	got := planEntries([]planning.TodoItem{
		{ID: "1", Content: "a", Status: planning.TodoCompleted},
		{ID: "2", Content: "b", Status: planning.TodoInProgress},
		{ID: "3", Content: "c", Status: planning.TodoPending},
		{ID: "4", Content: "d", Status: planning.TodoCancelled},
	})
	var s []string
	for _, e := range got {
		s = append(s, e.Content+":"+string(e.Status)+":"+string(e.Priority))
	}
	if strings.Join(s, " ") != "a:completed:medium b:in_progress:medium c:pending:medium d (cancelled):completed:medium" {
		t.Fatalf("entries %v", s)
	}
	if b, _ := json.Marshal(sdk.UpdatePlan(planEntries(nil)...)); !strings.Contains(string(b), `"entries":[]`) {
		t.Fatalf("an empty plan is sent as %s, not as an empty list", b)
	}
}

func TestFindBuiltin(t *testing.T) {
	cases := map[string]string{
		"/plan":              "plan|",
		"/plan fix the bug":  "plan|fix the bug",
		"/plan\nmulti line":  "plan|multi line",
		"/review":            "review|",
		"/nope":              "",
		"plan":               "",
		"look at /plan docs": "",
	}
	for in, want := range cases {
		c, arg, ok := findBuiltin(in)
		got := ""
		if ok {
			got = c.name + "|" + arg
		}
		if got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func TestMCPServers(t *testing.T) {
	got, err := mcpServers([]sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "local", Command: "/bin/srv", Args: []string{"-v"}, Env: []sdk.EnvVariable{{Name: "K", Value: "v"}}}},
		{Http: &sdk.McpServerHttpInline{Name: "remote", Url: "https://x/mcp", Headers: []sdk.HttpHeader{{Name: "Authorization", Value: "Bearer t"}}}},
		{Sse: &sdk.McpServerSseInline{Name: "old", Url: "https://x/sse"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if c := got["local"]; c.Type != "stdio" || c.Command != "/bin/srv" || c.Args[0] != "-v" || c.Env["K"] != "v" {
		t.Errorf("stdio: %+v", c)
	}
	if c := got["remote"]; c.Type != "http" || c.URL != "https://x/mcp" || c.Headers["Authorization"] != "Bearer t" {
		t.Errorf("http: %+v", c)
	}
	if c := got["old"]; c.Type != "sse" || c.URL != "https://x/sse" {
		t.Errorf("sse: %+v", c)
	}
	for _, bad := range [][]sdk.McpServer{
		{{Stdio: &sdk.McpServerStdio{Name: "", Command: "x"}}},
		{{Stdio: &sdk.McpServerStdio{Name: "a"}}},
		{{Http: &sdk.McpServerHttpInline{Name: "a"}}},
		{{Acp: &sdk.McpServerAcpInline{Name: "a", Id: "x"}}},
	} {
		if _, err := mcpServers(bad); err == nil {
			t.Errorf("%+v was accepted", bad)
		}
	}
}

type scopedTool struct {
	tool.Spec
	scope tool.Scope
}

func (s scopedTool) Scope(json.RawMessage) tool.Scope { return s.scope }

func (scopedTool) Execute(context.Context, json.RawMessage) (tool.Result, error) {
	return tool.Result{}, nil
}

func TestCallTitle(t *testing.T) {
	cases := []struct {
		tl    tool.Tool
		input string
		want  string
	}{
		{scopedTool{scope: tool.Scope{Command: "go  test\n./..."}}, `{}`, "x: go test ./..."},
		{scopedTool{scope: tool.Scope{Path: "a.go"}}, `{}`, "x: a.go"},
		{scopedTool{}, `{"pattern": "TODO", "path": "src"}`, "x: TODO"},
		{scopedTool{}, `{"title": "Plan"}`, "x: Plan"},
		{scopedTool{}, `not json`, "x"},
		{scopedTool{scope: tool.Scope{Command: strings.Repeat("y", 200)}}, `{}`, "x: " + strings.Repeat("y", maxTitle-4) + "…"},
	}
	for _, c := range cases {
		if got := callTitle("x", c.tl, json.RawMessage(c.input)); got != c.want {
			t.Errorf("%s: %q, want %q", c.input, got, c.want)
		}
	}
}
