package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/mcptool"
)

// mcpAuthDir is where OAuth logins to MCP servers are kept: the user's
// data directory, never a project (the workspace deny list and the
// sandbox keep the model's tools out of it).
func mcpAuthDir(c *config.Config) string { return filepath.Join(c.Home, "mcp-auth") }

// mcpTokens is the store of MCP OAuth logins.
func mcpTokens(c *config.Config) *mcptool.FileTokenStore {
	return mcptool.NewFileTokenStore(mcpAuthDir(c))
}

// mcpServers merges <workdir>/.mcp.json, when the user trusts the project
// (a cloned repository must not start commands by being opened), and
// config.toml's [mcp_servers]; config.toml wins on a name clash. ${VAR}
// and ${VAR:-default} are expanded in both, from the environment.
func mcpServers(c *config.Config) (map[string]mcptool.ServerConfig, error) {
	out := map[string]mcptool.ServerConfig{}
	if projectTrusted(c) {
		fromFile, err := projectMCP(c, os.LookupEnv)
		if err != nil {
			return nil, err
		}
		for k, v := range fromFile {
			out[k] = v
		}
	}
	for k, v := range c.MCPServers {
		out[k] = mcptool.ExpandEnv(serverConfig(v, os.Getenv), os.LookupEnv)
	}
	return out, nil
}

// serverConfig is a config.toml server as mcptool takes it; the OAuth
// client's secret is read from the variable the config names.
func serverConfig(v config.MCPServer, getenv func(string) string) mcptool.ServerConfig {
	s := mcptool.ServerConfig{Type: v.Type, Command: v.Command, Args: v.Args, Env: v.Env, URL: v.URL, Headers: v.Headers}
	if o := v.OAuth; o != nil {
		s.OAuth = &mcptool.OAuthConfig{ClientID: o.ClientID, CallbackPort: o.CallbackPort, Scopes: o.Scopes}
		if o.ClientSecretEnv != "" {
			s.OAuth.ClientSecret = getenv(o.ClientSecretEnv)
		}
	}
	return s
}

// projectMCP reads the workdir's .mcp.json, if any, expanding ${VAR}
// through lookup (nil: as written).
func projectMCP(c *config.Config, lookup func(string) (string, bool)) (map[string]mcptool.ServerConfig, error) {
	path := filepath.Join(c.Workdir, config.ProjectMCPFile)
	if _, err := os.Stat(path); err != nil {
		return nil, nil
	}
	return mcptool.LoadMCPJSON(path, lookup)
}

// serverState is one server's status in a line: its tools, or why it is
// not connected, with what to do about a missing login.
func serverState(st mcptool.ServerStatus) string {
	switch {
	case st.NeedsLogin:
		return fmt.Sprintf("needs a login: run `harness9 mcp login %s`", st.Name)
	case !st.Connected:
		return "failed: " + st.Err
	}
	s := fmt.Sprintf("%d tools", len(st.Tools))
	if len(st.Prompts) > 0 {
		s += fmt.Sprintf(", %d prompts", len(st.Prompts))
	}
	return s
}

// declineElicitation is the answer of a run nobody can be asked in: an
// MCP server's request for input is declined, and the person is told.
func declineElicitation(notice func(string)) mcptool.Elicitor {
	return func(_ context.Context, server string, q tool.Question) (tool.Answer, error) {
		if notice != nil {
			notice(fmt.Sprintf("MCP server %s asked for input (%q); declined: only the TUI can answer it", server, oneLine(q.Message, 120)))
		}
		return tool.Answer{Action: tool.Decline}, nil
	}
}

// oneLine is s on one line, at most n bytes.
func oneLine(s string, n int) string {
	out := []rune{}
	space := false
	for _, r := range s {
		if r == '\n' || r == '\r' || r == '\t' || r == ' ' {
			space = len(out) > 0
			continue
		}
		if space {
			out = append(out, ' ')
			space = false
		}
		out = append(out, r)
		if len(string(out)) >= n {
			return string(out) + "…"
		}
	}
	return string(out)
}
