// Package mcptool connects harness9 to Model Context Protocol servers and
// exposes their tools as harness9 tools named mcp__<server>__<tool>. Servers
// are configured the way other agents configure them (.mcp.json:
// {"mcpServers": {name: {command, args, env} | {url, headers}}}), started
// concurrently with a timeout, and a dead or slow server is reported and
// skipped without holding up the others. It is built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
package mcptool

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// ServerConfig is one MCP server: a command speaking MCP on stdin/stdout, or
// the URL of a streamable HTTP endpoint.
type ServerConfig struct {
	// Command and Args start a stdio server; Env adds to (and overrides) the
	// harness's own environment.
	Command string            `json:"command,omitempty" toml:"command,omitempty"`
	Args    []string          `json:"args,omitempty" toml:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty" toml:"env,omitempty"`
	// URL names a streamable HTTP endpoint; Headers are sent with every
	// request (Authorization, API keys).
	URL     string            `json:"url,omitempty" toml:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty" toml:"headers,omitempty"`
	// Type is optional: "stdio", "http" (streamable HTTP) or "sse" (the
	// older HTTP+SSE transport). When empty it follows from Command or URL.
	Type string `json:"type,omitempty" toml:"type,omitempty"`
	// OAuth configures the login of an HTTP server that asks for one
	// (Login); nil means discovery and dynamic client registration.
	OAuth *OAuthConfig `json:"oauth,omitempty" toml:"oauth,omitempty"`
}

// Transport names, as reported in ServerStatus.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
	TransportSSE   = "sse"
)

// Transport returns the transport the config asks for (TransportStdio,
// TransportHTTP or TransportSSE), or an error saying what is missing.
func (c ServerConfig) Transport() (string, error) { return c.transport() }

// transport returns the transport the config asks for, or an error saying
// what is missing.
func (c ServerConfig) transport() (string, error) {
	switch strings.ToLower(c.Type) {
	case "stdio":
		if c.Command == "" {
			return "", errors.New(`type "stdio" needs a "command"`)
		}
		return TransportStdio, nil
	case "http", "streamable-http", "streamablehttp", "streamable_http":
		if c.URL == "" {
			return "", errors.New(`type "http" needs a "url"`)
		}
		return TransportHTTP, nil
	case "sse":
		if c.URL == "" {
			return "", errors.New(`type "sse" needs a "url"`)
		}
		return TransportSSE, nil
	case "":
		switch {
		case c.Command != "" && c.URL != "":
			return "", errors.New(`both "command" and "url" are set; keep one`)
		case c.Command != "":
			return TransportStdio, nil
		case c.URL != "":
			return TransportHTTP, nil
		}
		return "", errors.New(`neither "command" (stdio) nor "url" (HTTP) is set`)
	}
	return "", fmt.Errorf("unknown type %q (want stdio, http or sse)", c.Type)
}

// mcpJSON is the file layout shared with other agents.
type mcpJSON struct {
	MCPServers map[string]ServerConfig `json:"mcpServers"`
}

// LoadMCPJSON reads a .mcp.json file ({"mcpServers": {name: config}}). A
// missing file is an error wrapping os.ErrNotExist, so callers can treat it
// as "no servers". ${VAR} and ${VAR:-default} in args, env values, url and
// headers are expanded through lookup (the CLI passes the process environment, as other agents do);
// a nil lookup leaves them as written, to show the file as it is.
func LoadMCPJSON(path string, lookup func(string) (string, bool)) (map[string]ServerConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading MCP config: %w", err)
	}
	var f mcpJSON
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("MCP config %s is not valid JSON: %w", path, err)
	}
	out := make(map[string]ServerConfig, len(f.MCPServers))
	for name, c := range f.MCPServers {
		out[name] = ExpandEnv(c, lookup)
	}
	return out, nil
}

// ExpandEnv returns c with ${VAR} and ${VAR:-default} expanded through
// lookup in Command, Args, Env values, URL and Headers; a nil lookup
// returns c unchanged.
func ExpandEnv(c ServerConfig, lookup func(string) (string, bool)) ServerConfig {
	if lookup == nil {
		return c
	}
	expand := func(s string) string { return expand(s, lookup) }
	c.Command = expand(c.Command)
	c.URL = expand(c.URL)
	if c.Args != nil {
		args := make([]string, len(c.Args))
		for i, a := range c.Args {
			args[i] = expand(a)
		}
		c.Args = args
	}
	c.Env = expandMap(c.Env, lookup)
	c.Headers = expandMap(c.Headers, lookup)
	return c
}

func expandMap(m map[string]string, lookup func(string) (string, bool)) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = expand(v, lookup)
	}
	return out
}

// expand replaces ${VAR} and ${VAR:-default}; a bare $ is left alone so
// commands and URLs containing it pass through.
func expand(s string, lookup func(string) (string, bool)) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		name, def, hasDef := strings.Cut(s[i+2:i+j], ":-")
		if v, ok := lookup(name); ok && (v != "" || !hasDef) {
			b.WriteString(v)
		} else {
			b.WriteString(def)
		}
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}
