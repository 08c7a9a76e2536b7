package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/tool/mcptool"
)

const userConfig = `# my harness9 settings
model = "openai/gpt-4.1"   # the default

[providers.ollama]
base_url = "http://localhost:11434/v1"

# GitHub, with a token from the environment
[mcp_servers.github]
url = "https://api.githubcopilot.com/mcp/"
headers = { Authorization = "Bearer ${GITHUB_PAT}" }
# read_only_tools = ["get_issue"]

[mcp_servers.github.env]
A = "1"

[mcp_servers.local]
command = "npx"   # keep
args = ["-y", "x"]

# sandbox below
[sandbox]
network = false
`

func writeTOML(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(text), 0o640); err != nil {
		t.Fatal(err)
	}
	return path
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Adding appends the server's tables and changes nothing else; the file
// keeps its mode and still loads.
func TestAddMCPServerKeepsTheFile(t *testing.T) {
	path := writeTOML(t, userConfig)
	s := MCPServer{URL: "https://mcp.linear.app/mcp", Headers: map[string]string{"X-Team": "core"}, OAuth: &MCPOAuth{CallbackPort: 8765}}
	if err := AddMCPServer(path, "linear", s); err != nil {
		t.Fatal(err)
	}
	got := readText(t, path)
	if !strings.HasPrefix(got, userConfig) {
		t.Fatalf("the existing text changed:\n%s", got)
	}
	want := "\n[mcp_servers.linear]\nurl = 'https://mcp.linear.app/mcp'\n\n[mcp_servers.linear.headers]\nX-Team = 'core'\n\n[mcp_servers.linear.oauth]\ncallback_port = 8765\n"
	if tail := strings.TrimPrefix(got, userConfig); tail != want {
		t.Errorf("added text = %q, want %q", tail, want)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v", fi.Mode().Perm())
	}
	c := load(t, path)
	if c.MCPServers["linear"].OAuth.CallbackPort != 8765 || c.MCPServers["github"].URL == "" || len(c.MCPServers) != 3 {
		t.Errorf("loaded servers = %+v", c.MCPServers)
	}
	if err := AddMCPServer(path, "linear", s); !errors.Is(err, ErrServerExists) {
		t.Errorf("adding twice: %v", err)
	}
	if err := AddMCPServer(path, "bad name", s); err == nil {
		t.Error("a server name with a space was accepted")
	}
	if err := AddMCPServer(path, "mixed", MCPServer{Type: "stdio", URL: "https://x"}); err == nil || !strings.Contains(err.Error(), "type stdio") {
		t.Errorf("a stdio server with a url was accepted: %v", err)
	}
}

func load(t *testing.T, path string) *Config {
	t.Helper()
	home := filepath.Dir(path)
	c, err := Load(Flags{Workdir: t.TempDir()}, func(k string) string {
		if k == EnvHome {
			return home
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A missing file is created for the user alone.
func TestAddMCPServerCreatesAPrivateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", "config.toml")
	if err := AddMCPServer(path, "everything", MCPServer{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"}}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v", fi.Mode().Perm())
	}
	if got := readText(t, path); got != "[mcp_servers.everything]\ncommand = 'npx'\nargs = ['-y', '@modelcontextprotocol/server-everything']\n" {
		t.Errorf("file = %q", got)
	}
}

// Removing takes out the server's tables, what they hold and the comments
// written for them, and nothing else.
func TestRemoveMCPServerKeepsTheRest(t *testing.T) {
	path := writeTOML(t, userConfig)
	ok, err := RemoveMCPServer(path, "github")
	if err != nil || !ok {
		t.Fatalf("remove: %v %v", ok, err)
	}
	want := `# my harness9 settings
model = "openai/gpt-4.1"   # the default

[providers.ollama]
base_url = "http://localhost:11434/v1"

[mcp_servers.local]
command = "npx"   # keep
args = ["-y", "x"]

# sandbox below
[sandbox]
network = false
`
	if got := readText(t, path); got != want {
		t.Errorf("after removing github:\n%s\nwant:\n%s", got, want)
	}
	ok, err = RemoveMCPServer(path, "local")
	if err != nil || !ok {
		t.Fatalf("remove local: %v %v", ok, err)
	}
	if got := readText(t, path); got != strings.Replace(want, "[mcp_servers.local]\ncommand = \"npx\"   # keep\nargs = [\"-y\", \"x\"]\n\n", "", 1) {
		t.Errorf("after removing local:\n%s", got)
	}
	if ok, err := RemoveMCPServer(path, "nothere"); ok || err != nil {
		t.Errorf("removing an unknown server: %v %v", ok, err)
	}
}

// Servers written as keys under [mcp_servers] (inline tables, dotted
// keys, multi-line arrays) are removed key by key; one inline table of
// every server is refused.
func TestRemoveMCPServerOtherForms(t *testing.T) {
	path := writeTOML(t, `[mcp_servers]
a = { command = "x" }
b.command = "y"
b.args = [
  "1",
  "2",
]
c = { url = "https://c" }
`)
	if ok, err := RemoveMCPServer(path, "b"); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if got := readText(t, path); got != "[mcp_servers]\na = { command = \"x\" }\nc = { url = \"https://c\" }\n" {
		t.Errorf("after removing b: %q", got)
	}
	path = writeTOML(t, "mcp_servers = { a = { command = \"x\" } }\n")
	if _, err := RemoveMCPServer(path, "a"); err == nil || !strings.Contains(err.Error(), "by hand") {
		t.Errorf("inline servers table: %v", err)
	}
	if got := readText(t, path); got != "mcp_servers = { a = { command = \"x\" } }\n" {
		t.Errorf("the file changed: %q", got)
	}
	if err := AddMCPServer(path, "b", MCPServer{Command: "y"}); err == nil || !strings.Contains(err.Error(), "by hand") {
		t.Errorf("adding to an inline servers table: %v", err)
	}
}

func TestLiteralSecretHeaders(t *testing.T) {
	got := LiteralSecretHeaders(MCPServer{Headers: map[string]string{
		"Authorization": "Bearer abc", "X-Api-Key": "${KEY}", "X-Team": "core", "X-Token": "t",
	}})
	if strings.Join(got, ",") != "Authorization,X-Token" {
		t.Errorf("got %v", got)
	}
}

// The project's .mcp.json keeps its other keys and servers, in order.
func TestProjectMCPJSON(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ProjectMCPFile)
	if err := os.WriteFile(path, []byte(`{"$schema": "x", "mcpServers": {"z": {"command": "z"}, "a": {"url": "https://a", "oauth": {"clientId": "c"}}}, "other": [1]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AddProjectMCP(dir, "m", mcptool.ServerConfig{Command: "npx", Args: []string{"-y", "pkg"}, Env: map[string]string{"K": "${K}"}}); err != nil {
		t.Fatal(err)
	}
	want := `{
  "$schema": "x",
  "mcpServers": {
    "z": {
      "command": "z"
    },
    "a": {
      "url": "https://a",
      "oauth": {
        "clientId": "c"
      }
    },
    "m": {
      "command": "npx",
      "args": [
        "-y",
        "pkg"
      ],
      "env": {
        "K": "${K}"
      }
    }
  },
  "other": [
    1
  ]
}
`
	if got := readText(t, path); got != want {
		t.Errorf(".mcp.json =\n%s\nwant\n%s", got, want)
	}
	servers, err := mcptool.LoadMCPJSON(path, nil)
	if err != nil || servers["a"].OAuth.ClientID != "c" || servers["m"].Args[1] != "pkg" {
		t.Errorf("loaded %+v, %v", servers, err)
	}
	if err := AddProjectMCP(dir, "z", mcptool.ServerConfig{Command: "q"}); !errors.Is(err, ErrServerExists) {
		t.Errorf("adding z twice: %v", err)
	}
	if ok, err := RemoveProjectMCP(dir, "z"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if ok, _ := RemoveProjectMCP(dir, "z"); ok {
		t.Error("z removed twice")
	}
	if servers, _ := mcptool.LoadMCPJSON(path, nil); len(servers) != 2 || servers["z"].Command != "" {
		t.Errorf("after remove: %+v", servers)
	}
	empty := t.TempDir()
	if err := AddProjectMCP(empty, "n", mcptool.ServerConfig{URL: "https://n"}); err != nil {
		t.Fatal(err)
	}
	if got := readText(t, filepath.Join(empty, ProjectMCPFile)); got != "{\n  \"mcpServers\": {\n    \"n\": {\n      \"url\": \"https://n\"\n    }\n  }\n}\n" {
		t.Errorf("new .mcp.json = %q", got)
	}
}
