package config

import "slices"

// MCPServer is one MCP server: a command for stdio, or a URL for streamable HTTP.
type MCPServer struct {
	// Type is "stdio", "http" or "sse"; empty follows from command or url.
	Type    string            `toml:"type,omitempty" json:"type,omitempty"`
	Command string            `toml:"command,omitempty" json:"command,omitempty"`
	Args    []string          `toml:"args,omitempty" json:"args,omitempty"`
	Env     map[string]string `toml:"env,omitempty" json:"env,omitempty"`
	URL     string            `toml:"url,omitempty" json:"url,omitempty"`
	Headers map[string]string `toml:"headers,omitempty" json:"headers,omitempty"`
	// OAuth configures the login of an HTTP server that asks for one
	// (`harness9 mcp login NAME`); nil means discovery and dynamic client
	// registration.
	OAuth *MCPOAuth `toml:"oauth,omitempty" json:"oauth,omitempty"`
	// ReadOnlyTools are tools of this server (by its own names) the user
	// declares read-only although the server does not hint so.
	ReadOnlyTools []string `toml:"read_only_tools,omitempty" json:"read_only_tools,omitempty"`
	// Unconfined starts this stdio server outside the kernel sandbox (it
	// then has the user's full file access). Only the user's own config
	// can say so; a project's .mcp.json cannot.
	Unconfined bool `toml:"unconfined,omitempty" json:"unconfined,omitempty"`
}

// MCPOAuth is [mcp_servers.NAME.oauth]: a client registered in advance
// with the server's authorization server.
type MCPOAuth struct {
	ClientID string `toml:"client_id,omitempty" json:"client_id,omitempty"`
	// ClientSecretEnv names the variable holding the client's secret, if
	// it has one (secrets are never written in config.toml).
	ClientSecretEnv string `toml:"client_secret_env,omitempty" json:"client_secret_env,omitempty"`
	// CallbackPort is the loopback port the client was registered with
	// (http://127.0.0.1:PORT/callback); 0 picks a free one.
	CallbackPort int      `toml:"callback_port,omitempty" json:"callback_port,omitempty"`
	Scopes       []string `toml:"scopes,omitempty" json:"scopes,omitempty"`
}

// checkMCPServer says what is wrong with a server's settings, "" if
// nothing.
func checkMCPServer(s MCPServer) string {
	switch {
	case (s.Command == "") == (s.URL == ""):
		return "set exactly one of command (stdio) or url (streamable HTTP)"
	case !slices.Contains([]string{"", "stdio", "http", "sse"}, s.Type):
		return `type must be "stdio", "http" or "sse"`
	case s.Type == "stdio" && s.Command == "", (s.Type == "http" || s.Type == "sse") && s.URL == "":
		return "type " + s.Type + " does not match command/url"
	case s.OAuth != nil && s.URL == "":
		return "oauth is for servers with a url"
	case s.OAuth != nil && (s.OAuth.CallbackPort < 0 || s.OAuth.CallbackPort > 65535):
		return "oauth.callback_port must be a port number"
	}
	return ""
}
