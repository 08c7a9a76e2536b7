package mcptool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/picture"
	"github.com/harness9/harness9/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMain doubles as a stdio MCP server when started as a helper process.
func TestMain(m *testing.M) {
	switch os.Getenv("HARNESS9_MCPTOOL_HELPER") {
	case "serve":
		s := mcp.NewServer(&mcp.Implementation{Name: "helper", Version: "1"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "Returns $GREETING."},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: os.Getenv("GREETING")}}}, nil, nil
			})
		mcp.AddTool(s, &mcp.Tool{Name: "environ", Description: "Returns the whole environment."},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(os.Environ(), "\n")}}}, nil, nil
			})
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(0)
	case "flood":
		// One line of 256 MB: a JSON-RPC response that never ends.
		buf := make([]byte, 1<<20)
		for i := range buf {
			buf[i] = 'A'
		}
		os.Stdout.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"x":"`)
		for range 256 {
			if _, err := os.Stdout.Write(buf); err != nil {
				os.Exit(0)
			}
		}
		os.Exit(0)
	case "crash":
		fmt.Fprintln(os.Stderr, "fatal: missing API_TOKEN")
		os.Exit(1)
	}
	os.Exit(m.Run())
}

type echoIn struct {
	Message string `json:"message" jsonschema:"text to echo"`
}

type weather struct {
	Temperature int    `json:"temperature"`
	Conditions  string `json:"conditions"`
}

// inProcess starts a Go MCP server with a few tools on an in-memory
// transport and returns the client end.
func inProcess(t *testing.T) mcp.Transport {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "local", Version: "1"}, &mcp.ServerOptions{Instructions: "Use echo to test."})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo a message.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Echo: " + in.Message}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("disk quota exceeded")
		})
	mcp.AddTool(s, &mcp.Tool{Name: "weather", Description: "Structured weather.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, weather, error) {
			return nil, weather{Temperature: 21, Conditions: "sunny"}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "mixed.content/v2", Description: "Text, image and structured content."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{
				Content:           []mcp.Content{&mcp.TextContent{Text: "line one"}, &mcp.ImageContent{MIMEType: "image/png", Data: []byte("png")}},
				StructuredContent: map[string]any{"ok": true},
			}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "screenshot", Description: "Pictures: one small, one too wide, a fake, and more than a result may attach."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			content := []mcp.Content{
				&mcp.ImageContent{MIMEType: "image/jpeg", Data: pngOf(t, 3, 2)}, // the bytes decide, not the MIME type
				&mcp.ImageContent{MIMEType: "image/png", Data: pngOf(t, 4000, 10)},
				&mcp.ImageContent{MIMEType: "image/png", Data: []byte("<svg onload=alert(1)>")},
			}
			for range 4 {
				content = append(content, &mcp.ImageContent{MIMEType: "image/png", Data: pngOf(t, 1, 1)})
			}
			return &mcp.CallToolResult{Content: content}, nil, nil
		})
	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	return clientT
}

func toolsByName(m *Manager) map[string]tool.Tool {
	out := map[string]tool.Tool{}
	for _, t := range m.Tools() {
		out[t.Name()] = t
	}
	return out
}

func run(t *testing.T, tl tool.Tool, input string) tool.Result {
	t.Helper()
	res, err := tl.Execute(context.Background(), json.RawMessage(input))
	if err != nil {
		t.Fatalf("%s: %v", tl.Name(), err)
	}
	return res
}

func TestInProcessServer(t *testing.T) {
	m, err := Connect(context.Background(), nil, WithTransport("local", inProcess(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()

	st := m.Status()
	if len(st) != 1 || !st[0].Connected || st[0].Err != "" || st[0].Instructions != "Use echo to test." {
		t.Fatalf("status = %+v", st)
	}
	want := []string{"mcp__local__echo", "mcp__local__fail", "mcp__local__mixed_content_v2", "mcp__local__screenshot", "mcp__local__weather"}
	if got := strings.Join(st[0].Tools, " "); got != strings.Join(want, " ") {
		t.Errorf("tools = %s, want %s", got, strings.Join(want, " "))
	}
	tools := toolsByName(m)

	echo := tools["mcp__local__echo"]
	if !echo.(tool.ReadOnly).ReadOnly() {
		t.Error("echo has readOnlyHint but is not ReadOnly")
	}
	if tools["mcp__local__fail"].(tool.ReadOnly).ReadOnly() {
		t.Error("fail has no readOnlyHint but is ReadOnly")
	}
	if !strings.Contains(echo.Description(), "Echo a message.") {
		t.Errorf("description = %q", echo.Description())
	}
	var schema struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	if err := json.Unmarshal(echo.Schema(), &schema); err != nil || schema.Type != "object" || schema.Properties["message"] == nil {
		t.Errorf("echo schema not passed through: %s (%v)", echo.Schema(), err)
	}

	if res := run(t, echo, `{"message":"hi"}`); res.IsError || res.Output != "Echo: hi" {
		t.Errorf("echo = %+v", res)
	}
	if res := run(t, echo, `{"message": 5}`); !res.IsError {
		t.Errorf("invalid arguments not reported: %+v", res)
	}
	if res := run(t, echo, `[1]`); !res.IsError || !strings.Contains(res.Output, "JSON object") {
		t.Errorf("non-object arguments = %+v", res)
	}
	if res := run(t, tools["mcp__local__fail"], ``); !res.IsError || !strings.Contains(res.Output, "disk quota exceeded") {
		t.Errorf("fail = %+v", res)
	}
	res := run(t, tools["mcp__local__weather"], `{}`)
	if res.IsError || res.Output != `{"conditions":"sunny","temperature":21}` && res.Output != `{"temperature":21,"conditions":"sunny"}` {
		t.Errorf("weather (structured, text duplicate dropped) = %q", res.Output)
	}
	res = run(t, tools["mcp__local__mixed_content_v2"], `{}`)
	if !strings.HasPrefix(res.Output, "line one\n[image: image/png, 3 bytes, not attached: ") || !strings.HasSuffix(res.Output, "\n\n{\"ok\":true}") || len(res.Images) != 0 {
		t.Errorf("mixed = %q (%d images)", res.Output, len(res.Images))
	}
	res = run(t, tools["mcp__local__screenshot"], `{}`)
	// Four pictures are tried (the fake among them), so three attach.
	if res.IsError || len(res.Images) != maxResultImages-1 {
		t.Fatalf("screenshot: %d images, want %d: %q", len(res.Images), maxResultImages-1, res.Output)
	}
	if im := res.Images[0]; im.MediaType != "image/png" || im.Width != 3 || im.Height != 2 {
		t.Errorf("first image = %s %d×%d, want image/png 3×2", im.MediaType, im.Width, im.Height)
	}
	if im := res.Images[1]; max(im.Width, im.Height) > picture.MaxSide {
		t.Errorf("a 4000-pixel-wide picture reached the model at %d×%d", im.Width, im.Height)
	}
	for _, im := range res.Images {
		if _, _, err := image.Decode(bytes.NewReader(im.Data)); err != nil {
			t.Errorf("an attached image does not decode: %v", err)
		}
	}
	if !strings.Contains(res.Output, "not attached") || strings.Count(res.Output, "attached]") != maxResultImages-1 {
		t.Errorf("screenshot text = %q", res.Output)
	}

	if err := m.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if res := run(t, echo, `{"message":"hi"}`); !res.IsError {
		t.Errorf("call after Close succeeded: %+v", res)
	}
	if err := m.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
}

func TestDeadAndSlowServersAreSkipped(t *testing.T) {
	servers := map[string]ServerConfig{
		"dead":    {Command: "harness9-no-such-command-7f3a"},
		"slow":    {Command: "sleep", Args: []string{"30"}},
		"crash":   {Command: os.Args[0], Env: map[string]string{"HARNESS9_MCPTOOL_HELPER": "crash"}},
		"invalid": {},
		"badhttp": {URL: "http://127.0.0.1:1/mcp"},
	}
	start := time.Now()
	m, err := Connect(context.Background(), servers, WithTimeout(4*time.Second), WithTransport("good", inProcess(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	t.Logf("Connect with a dead, a slow and a crashing server took %s (timeout 4s)", time.Since(start))

	byName := map[string]ServerStatus{}
	for _, s := range m.Status() {
		byName[s.Name] = s
	}
	if len(byName) != 6 {
		t.Fatalf("status has %d servers: %+v", len(byName), m.Status())
	}
	if !byName["good"].Connected || len(byName["good"].Tools) != 5 {
		t.Errorf("good server = %+v", byName["good"])
	}
	for name, want := range map[string]string{
		"dead":    "not found",
		"slow":    "did not answer within 4s",
		"crash":   "fatal: missing API_TOKEN",
		"invalid": "neither",
		"badhttp": "handshake failed",
	} {
		s := byName[name]
		if s.Connected || len(s.Tools) != 0 || !strings.Contains(s.Err, want) {
			t.Errorf("%s: connected=%v err=%q, want an error containing %q", name, s.Connected, s.Err, want)
		}
	}
	if byName["slow"].Transport != TransportStdio || byName["badhttp"].Transport != TransportHTTP {
		t.Errorf("transports: %+v", m.Status())
	}
	if n := len(m.Tools()); n != 5 {
		t.Errorf("%d tools, want only the good server's 5", n)
	}
}

func TestStdioServerGetsEnv(t *testing.T) {
	m, err := Connect(context.Background(), map[string]ServerConfig{
		"helper": {Command: os.Args[0], Env: map[string]string{"HARNESS9_MCPTOOL_HELPER": "serve", "GREETING": "hello from env"}},
	}, WithDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tools := toolsByName(m)
	tl, ok := tools["mcp__helper__env"]
	if !ok {
		t.Fatalf("status = %+v", m.Status())
	}
	if res := run(t, tl, `{}`); res.Output != "hello from env" {
		t.Errorf("env = %+v", res)
	}
	if err := m.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

// A stdio server inherits no secret of the harness's environment: its
// tools' output reaches the model.
func TestStdioServerGetsNoSecrets(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-leak-1")
	t.Setenv("github_token", "gh-leak-2")
	t.Setenv("HARNESS9_PLAIN", "plain-kept")
	t.Setenv("HARNESS9_STORE", "postgres://u:pw-leak-3@db/h9") // a plain name, hidden by WithHiddenEnv
	m, err := Connect(context.Background(), map[string]ServerConfig{
		"helper": {Command: os.Args[0], Env: map[string]string{"HARNESS9_MCPTOOL_HELPER": "serve", "SERVICE_TOKEN": "configured"}},
	}, WithDir(t.TempDir()), WithBaseEnv(os.Environ()), WithHiddenEnv("HARNESS9_STORE"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tl, ok := toolsByName(m)["mcp__helper__environ"]
	if !ok {
		t.Fatalf("status = %+v", m.Status())
	}
	out := run(t, tl, `{}`).Output
	if strings.Contains(out, "-leak-") {
		t.Errorf("a secret reached the MCP server:\n%s", out)
	}
	if !strings.Contains(out, "HARNESS9_PLAIN=plain-kept") || !strings.Contains(out, "SERVICE_TOKEN=configured") {
		t.Errorf("ordinary and explicitly configured variables must pass:\n%s", out)
	}
}

func TestConnectCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, err := Connect(ctx, map[string]ServerConfig{"slow": {Command: "sleep", Args: []string{"30"}}})
	if !errors.Is(err, context.Canceled) || m == nil {
		t.Fatalf("m=%v err=%v", m, err)
	}
	defer m.Close()
	if st := m.Status(); st[0].Connected {
		t.Errorf("status = %+v", st)
	}
}

// pngOf encodes a w×h PNG.
func pngOf(t *testing.T, w, h int) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
