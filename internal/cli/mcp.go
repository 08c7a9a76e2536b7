package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/internal/termtext"
	"github.com/harness9/harness9/tool/mcptool"
)

func newMCPCmd(e *env, g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "mcp", Short: "MCP servers: list, add, remove, get, login, logout"}
	cmd.AddCommand(newMCPListCmd(e, g), newMCPAddCmd(e, g), newMCPRemoveCmd(e, g), newMCPGetCmd(e, g),
		newMCPLoginCmd(e, g), newMCPLogoutCmd(e, g))
	return cmd
}

func newMCPListCmd(e *env, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "Start each configured MCP server and list its status, tools and prompts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := g.load(e, config.Flags{})
			if err != nil {
				return err
			}
			if n := untrustedNotice(c); n != "" {
				fmt.Fprintf(e.stderr, "harness9: %s\n", n)
			}
			servers, err := mcpServers(c)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			ws, err := projectWorkspace(c, c.Workdir)
			if err != nil {
				return withCode(ExitUsage, fmt.Errorf("workdir: %w", err))
			}
			sb, err := newSandbox(c, ws, os.Getenv)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			if len(servers) == 0 {
				fmt.Fprintf(e.stderr, "no MCP servers; add one with `harness9 mcp add`, or configure them in %s/.mcp.json or [mcp_servers] in %s\n", c.Workdir, c.File)
				return nil
			}
			stdout, stderr := termtext.Writer(e.stdout), termtext.Writer(e.stderr)
			m, err := harness.ConnectMCP(cmd.Context(), sb, append(environment(c, os.Getenv),
				harness.WithMCP(servers, mcpOptions(c)...),
				harness.WithNotify(func(msg string) { fmt.Fprintf(stderr, "harness9: %s\n", msg) }))...)
			if err != nil {
				return withCode(ExitError, err)
			}
			defer m.Close()
			for _, st := range m.Status() {
				state := "connected"
				if !st.Connected {
					state = serverState(st)
				}
				fmt.Fprintf(stdout, "%s (%s) %s\n", st.Name, st.Transport, state)
				for _, name := range append(st.Tools, st.Prompts...) {
					fmt.Fprintf(stdout, "    %s\n", name)
				}
			}
			return nil
		},
	}
}

// addFlags are `mcp add`'s flags.
type addFlags struct {
	url, transport         string
	headers, env, scopes   []string
	project                bool
	clientID, clientSecret string
	callbackPort           int
	readOnlyTools          []string
	unconfined             bool
}

func newMCPAddCmd(e *env, g *globals) *cobra.Command {
	var f addFlags
	cmd := &cobra.Command{
		Use:   "add NAME [--url URL | -- COMMAND [ARGS...]]",
		Short: "Add an MCP server to your config.toml (or, with --project, to the project's .mcp.json)",
		Long: "Add an MCP server: a command that speaks MCP on stdio, given after --, or the URL of a streamable HTTP\n" +
			"server (--url). The server goes into [mcp_servers.NAME] of your config.toml, whose other text is kept as\n" +
			"it is; with --project into <workdir>/.mcp.json, whose servers start only once you trust the project.\n" +
			"Values may name environment variables as ${VAR}, which is read when the server starts.\n\n" +
			"  harness9 mcp add everything -- npx -y @modelcontextprotocol/server-everything\n" +
			"  harness9 mcp add github --url https://api.githubcopilot.com/mcp/ --header 'Authorization=Bearer ${GITHUB_PAT}'\n" +
			"  harness9 mcp add linear --url https://mcp.linear.app/mcp && harness9 mcp login linear",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return mcpAdd(e, g, &f, cmd.ArgsLenAtDash(), args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.url, "url", "", "the server's streamable HTTP (or, with --transport sse, SSE) endpoint")
	fl.StringVar(&f.transport, "transport", "", "stdio, http or sse (default: stdio with a command, http with --url)")
	fl.StringArrayVar(&f.headers, "header", nil, "an HTTP header sent with every request, as NAME=VALUE (repeatable)")
	fl.StringArrayVarP(&f.env, "env", "e", nil, "an environment variable of a stdio server, as NAME=VALUE (repeatable)")
	fl.BoolVar(&f.project, "project", false, "write the project's .mcp.json instead of your config.toml")
	fl.StringVar(&f.clientID, "client-id", "", "an OAuth client registered for harness9 with the server's authorization server")
	fl.StringVar(&f.clientSecret, "client-secret-env", "", "the environment variable holding that client's secret")
	fl.IntVar(&f.callbackPort, "callback-port", 0, "the loopback port that client was registered with (default: any free port)")
	fl.StringArrayVar(&f.scopes, "scope", nil, "an OAuth scope to ask for instead of the server's (repeatable)")
	fl.StringArrayVar(&f.readOnlyTools, "read-only-tool", nil, "a tool of the server that changes nothing (your config only; repeatable)")
	fl.BoolVar(&f.unconfined, "unconfined", false, "start this stdio server outside the kernel sandbox (your config only)")
	return cmd
}

func mcpAdd(e *env, g *globals, f *addFlags, dash int, args []string) error {
	name := args[0]
	var command []string
	switch {
	case dash == 1:
		command = args[1:]
	case dash > 1 || (dash < 0 && len(args) > 1):
		return usageErr("mcp add takes the server's NAME, then the command after --: harness9 mcp add NAME -- COMMAND ARGS...")
	}
	if !config.ValidServerName(name) {
		return usageErr("%q cannot name an MCP server: use letters, digits, '-' and '_'", name)
	}
	if (len(command) == 0) == (f.url == "") {
		return usageErr("give either the server's command after -- (stdio) or --url URL (HTTP), e.g. harness9 mcp add %s -- npx -y PACKAGE", name)
	}
	s := config.MCPServer{Type: f.transport, URL: f.url, ReadOnlyTools: f.readOnlyTools, Unconfined: f.unconfined}
	if len(command) > 0 {
		s.Command, s.Args = command[0], command[1:]
	}
	var err error
	if s.Headers, err = pairs("--header", f.headers); err != nil {
		return err
	}
	if s.Env, err = pairs("--env", f.env); err != nil {
		return err
	}
	if f.clientID != "" || f.clientSecret != "" || f.callbackPort != 0 || len(f.scopes) > 0 {
		s.OAuth = &config.MCPOAuth{ClientID: f.clientID, ClientSecretEnv: f.clientSecret, CallbackPort: f.callbackPort, Scopes: f.scopes}
	}
	switch {
	case s.URL != "" && len(s.Env) > 0:
		return usageErr("--env is for stdio servers; an HTTP server takes --header")
	case s.Command != "" && (len(s.Headers) > 0 || s.OAuth != nil):
		return usageErr("--header and the OAuth flags are for HTTP servers (--url)")
	case f.project && (len(s.ReadOnlyTools) > 0 || s.Unconfined || f.clientSecret != ""):
		return usageErr("--read-only-tool, --unconfined and --client-secret-env belong in your own config, not a project's .mcp.json (drop --project)")
	}
	c, err := g.load(e, config.Flags{})
	if err != nil {
		return err
	}
	if f.project {
		return addToProject(e, c, name, s)
	}
	if err := config.AddMCPServer(c.File, name, s); err != nil {
		return usageErr("%v", err)
	}
	fmt.Fprintf(e.stdout, "Added MCP server %s to %s\n", name, c.File)
	for _, h := range config.LiteralSecretHeaders(s) {
		fmt.Fprintf(e.stderr, "harness9: the %s header is written in %s as given; to keep it out of the file, use ${VAR} and set VAR in your environment\n", h, c.File)
	}
	if s.URL != "" {
		fmt.Fprintf(e.stdout, "If it asks for a login (OAuth), run: harness9 mcp login %s\n", name)
	}
	return nil
}

// addToProject writes the server into the workdir's .mcp.json.
func addToProject(e *env, c *config.Config, name string, s config.MCPServer) error {
	sc := mcptool.ServerConfig{Type: s.Type, Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers}
	if o := s.OAuth; o != nil {
		sc.OAuth = &mcptool.OAuthConfig{ClientID: o.ClientID, CallbackPort: o.CallbackPort, Scopes: o.Scopes}
	}
	if _, err := sc.Transport(); err != nil {
		return usageErr("MCP server %s: %v", name, err)
	}
	if err := config.AddProjectMCP(c.Workdir, name, sc); err != nil {
		return usageErr("%v", err)
	}
	fmt.Fprintf(e.stdout, "Added MCP server %s to %s/%s\n", name, c.Workdir, config.ProjectMCPFile)
	fmt.Fprintf(e.stdout, "The project's servers start once you trust it: read %s, then run harness9 trust\n", config.ProjectMCPFile)
	return nil
}

// pairs parses NAME=VALUE flags.
func pairs(flag string, list []string) (map[string]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(list))
	for _, p := range list {
		k, v, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usageErr("%s %q: write it as NAME=VALUE", flag, p)
		}
		out[strings.TrimSpace(k)] = v
	}
	return out, nil
}

func newMCPRemoveCmd(e *env, g *globals) *cobra.Command {
	var project bool
	cmd := &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove an MCP server from your config.toml (or, with --project, from the project's .mcp.json) and forget its login",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			name := args[0]
			c, err := g.load(e, config.Flags{})
			if err != nil {
				return err
			}
			if project {
				ok, err := config.RemoveProjectMCP(c.Workdir, name)
				if err != nil {
					return usageErr("%v", err)
				}
				if !ok {
					return usageErr("%s/%s has no MCP server %s", c.Workdir, config.ProjectMCPFile, name)
				}
				fmt.Fprintf(e.stdout, "Removed MCP server %s from %s/%s\n", name, c.Workdir, config.ProjectMCPFile)
				return nil
			}
			s, had := c.MCPServers[name]
			ok, err := config.RemoveMCPServer(c.File, name)
			if err != nil {
				return usageErr("%v", err)
			}
			if !ok {
				if p, _ := projectMCP(c, nil); p[name].Command != "" || p[name].URL != "" {
					return usageErr("%s is a server of the project's %s, not of %s; remove it with --project", name, config.ProjectMCPFile, c.File)
				}
				return usageErr("no MCP server %s in %s", name, c.File)
			}
			fmt.Fprintf(e.stdout, "Removed MCP server %s from %s\n", name, c.File)
			if had && s.URL != "" {
				url := mcptool.ExpandEnv(serverConfig(s, os.Getenv), os.LookupEnv).URL
				if creds, _ := mcpTokens(c).Load(url); creds != nil {
					if err := mcptool.Logout(mcpTokens(c), url); err != nil {
						return withCode(ExitError, err)
					}
					fmt.Fprintf(e.stdout, "Forgot its login\n")
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&project, "project", false, "remove it from the project's .mcp.json")
	return cmd
}

// serverRef is a configured server: where it comes from, its settings as
// written (to show) and expanded (to use), and whether it may start (a
// project's server needs the project's trust).
type serverRef struct {
	source            string
	written, expanded mcptool.ServerConfig
	trusted           bool
}

// configuredServer loads the configuration and finds server name in it:
// the user's config first, then the project's .mcp.json. An untrusted
// project's server is expanded from nothing (no variable is read for it).
func configuredServer(e *env, g *globals, name string) (*config.Config, serverRef, error) {
	c, err := g.load(e, config.Flags{})
	if err != nil {
		return nil, serverRef{}, err
	}
	if s, ok := c.MCPServers[name]; ok {
		return c, serverRef{source: c.File, written: serverConfig(s, func(string) string { return "" }),
			expanded: mcptool.ExpandEnv(serverConfig(s, os.Getenv), os.LookupEnv), trusted: true}, nil
	}
	project, err := projectMCP(c, nil)
	if err != nil {
		return nil, serverRef{}, usageErr("%v", err)
	}
	s, ok := project[name]
	if !ok {
		return nil, serverRef{}, usageErr("no MCP server %s; `harness9 mcp list` shows the configured ones", name)
	}
	ref := serverRef{source: filepath.Join(c.Workdir, config.ProjectMCPFile), written: s, trusted: projectTrusted(c)}
	lookup := func(string) (string, bool) { return "", false }
	if ref.trusted {
		lookup = os.LookupEnv
	}
	ref.expanded = mcptool.ExpandEnv(s, lookup)
	return c, ref, nil
}
