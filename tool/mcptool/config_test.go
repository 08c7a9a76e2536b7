package mcptool

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestLoadMCPJSON(t *testing.T) {
	t.Setenv("H9_TEST_TOKEN", "s3cret")
	t.Setenv("H9_TEST_EMPTY", "")
	path := filepath.Join(t.TempDir(), ".mcp.json")
	err := os.WriteFile(path, []byte(`{"mcpServers": {
		"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "${H9_TEST_DIR:-.}"], "env": {"TOKEN": "${H9_TEST_TOKEN}"}},
		"remote": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${H9_TEST_TOKEN}", "X-Empty": "${H9_TEST_EMPTY:-fallback}", "X-Dollar": "$HOME"}}
	}}`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadMCPJSON(path, os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]ServerConfig{
		"fs":     {Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "."}, Env: map[string]string{"TOKEN": "s3cret"}},
		"remote": {Type: "http", URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer s3cret", "X-Empty": "fallback", "X-Dollar": "$HOME"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}

	if _, err := LoadMCPJSON(filepath.Join(t.TempDir(), "none.json"), os.LookupEnv); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	_ = os.WriteFile(bad, []byte(`{"mcpServers": [`), 0o644)
	if _, err := LoadMCPJSON(bad, os.LookupEnv); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("bad file: %v", err)
	}
}

func TestTransportChoice(t *testing.T) {
	tests := []struct {
		cfg  ServerConfig
		want string // transport, or "error: ..." substring
	}{
		{ServerConfig{Command: "x"}, TransportStdio},
		{ServerConfig{URL: "http://h"}, TransportHTTP},
		{ServerConfig{Type: "sse", URL: "http://h"}, TransportSSE},
		{ServerConfig{Type: "streamable-http", URL: "http://h"}, TransportHTTP},
		{ServerConfig{Type: "stdio"}, "error: needs a \"command\""},
		{ServerConfig{Command: "x", URL: "http://h"}, "error: both"},
		{ServerConfig{}, "error: neither"},
		{ServerConfig{Type: "ws", URL: "ws://h"}, "error: unknown type"},
	}
	for _, tt := range tests {
		got, err := tt.cfg.transport()
		if err != nil {
			got = "error: " + err.Error()
		}
		if !strings.HasPrefix(got, tt.want) && !strings.Contains(got, strings.TrimPrefix(tt.want, "error: ")) {
			t.Errorf("%+v: %s, want %s", tt.cfg, got, tt.want)
		}
	}
}

func TestName(t *testing.T) {
	if got := Name("my server", "read.file/v2"); got != "mcp__my_server__read_file_v2" {
		t.Errorf("Name = %q", got)
	}
	long := Name("server", strings.Repeat("x", 100))
	long2 := Name("server", strings.Repeat("x", 99)+"y")
	if len(long) != 64 || len(long2) != 64 || long == long2 {
		t.Errorf("long names: %q (%d), %q", long, len(long), long2)
	}
	n := newNameSet()
	a, b, c := n.claim("s", "a.b"), n.claim("s", "a_b"), n.claim("s", "a b")
	if a != "mcp__s__a_b" || b != "mcp__s__a_b_2" || c != "mcp__s__a_b_3" {
		t.Errorf("claims = %s %s %s", a, b, c)
	}
}

func TestConvertResult(t *testing.T) {
	res := convertResult(&mcp.CallToolResult{IsError: true})
	if !res.IsError || res.Output == "" {
		t.Errorf("empty error = %+v", res)
	}
	res = convertResult(&mcp.CallToolResult{Content: []mcp.Content{
		&mcp.ResourceLink{URI: "file:///a.txt", Name: "a.txt"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://x", Text: "inline"}},
		&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("abcd")},
	}})
	want := "[resource link: a.txt file:///a.txt]\n[resource mem://x]\ninline\n[audio: audio/wav, 4 bytes]"
	if res.IsError || res.Output != want {
		t.Errorf("got %q\nwant %q", res.Output, want)
	}
}

func TestInputSchemaNormalised(t *testing.T) {
	if got := string(inputSchema(nil)); got != `{"properties":{},"type":"object"}` {
		t.Errorf("nil schema = %s", got)
	}
	if got := string(inputSchema(map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}})); got != `{"properties":{"a":{"type":"string"}},"type":"object"}` {
		t.Errorf("schema = %s", got)
	}
}
