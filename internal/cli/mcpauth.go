package cli

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/internal/termtext"
	"github.com/harness9/harness9/tool/mcptool"
)

func newMCPLoginCmd(e *env, g *globals) *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "login NAME",
		Short: "Log in to an HTTP MCP server that asks for OAuth (opens the authorization page in your browser)",
		Long: "Log in to an HTTP MCP server with OAuth, as the MCP authorization spec describes: the server's answer\n" +
			"names its authorization server, harness9 registers itself there (or uses the client of --client-id),\n" +
			"and you approve the access in your browser. The page's address is printed too: on a machine whose\n" +
			"browser cannot reach this one, open it anywhere and paste the address the browser ends on (or its\n" +
			"code) here. The tokens are kept in the data directory (mcp-auth/, readable by you only), sent only to\n" +
			"this server's URL and refreshed before they expire.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			c, ref, err := configuredServer(e, g, name)
			if err != nil {
				return err
			}
			if !ref.trusted {
				return usageErr("%s comes from %s, which you have not trusted: read it, then run harness9 trust", name, ref.source)
			}
			s := ref.expanded
			if kind, _ := s.Transport(); kind != mcptool.TransportHTTP {
				return usageErr("%s is a %s server; only streamable HTTP servers (url) log in with OAuth", name, kind)
			}
			for k := range s.Headers {
				if strings.EqualFold(k, "Authorization") {
					return usageErr("%s sends an Authorization header of its own (%s); remove it to log in with OAuth", name, ref.source)
				}
			}
			creds, err := mcptool.Login(cmd.Context(), name, s, mcptool.LoginOptions{
				Store: mcpTokens(c), Out: termtext.Writer(e.stderr), OpenURL: browserOpener(e.getenv), In: e.stdin, Timeout: timeout,
			})
			if err != nil {
				return withCode(ExitError, err)
			}
			if creds == nil {
				fmt.Fprintf(e.stdout, "MCP server %s did not ask for a login; nothing was stored\n", name)
				return nil
			}
			fmt.Fprintf(e.stdout, "Logged in to %s (%s); the login is kept in %s\n", name, loginState(creds, time.Now()), mcpAuthDir(c))
			return nil
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Minute, "how long to wait for the browser")
	return cmd
}

func newMCPLogoutCmd(e *env, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "logout NAME",
		Short: "Forget the OAuth login of an MCP server",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			name := args[0]
			c, ref, err := configuredServer(e, g, name)
			if err != nil {
				return err
			}
			s, store := ref.expanded, mcpTokens(c)
			if creds, _ := store.Load(s.URL); creds == nil || s.URL == "" {
				fmt.Fprintf(e.stdout, "%s had no stored login\n", name)
				return nil
			}
			if err := mcptool.Logout(store, s.URL); err != nil {
				return withCode(ExitError, err)
			}
			fmt.Fprintf(e.stdout, "Logged out of %s\n", name)
			return nil
		},
	}
}

func newMCPGetCmd(e *env, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "get NAME",
		Short: "Show how an MCP server is configured and whether it is logged in (secrets masked)",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			name := args[0]
			c, ref, err := configuredServer(e, g, name)
			if err != nil {
				return err
			}
			source, written, s, trusted := ref.source, ref.written, ref.expanded, ref.trusted
			out := termtext.Writer(e.stdout)
			fmt.Fprintf(out, "%s\n", name)
			row := func(k, v string) { fmt.Fprintf(out, "  %-10s %s\n", k+":", v) }
			row("source", source)
			if !trusted {
				row("trust", "not trusted: its servers do not start (harness9 trust)")
			}
			kind, kerr := written.Transport()
			if kerr != nil {
				kind = "invalid: " + kerr.Error()
			}
			row("transport", kind)
			if written.Command != "" {
				row("command", strings.Join(append([]string{written.Command}, written.Args...), " "))
			}
			if written.URL != "" {
				row("url", written.URL)
			}
			if len(written.Env) > 0 {
				row("env", masked(written.Env))
			}
			if len(written.Headers) > 0 {
				row("headers", masked(written.Headers))
			}
			if st, ok := c.MCPServers[name]; ok {
				if len(st.ReadOnlyTools) > 0 {
					row("read-only", strings.Join(st.ReadOnlyTools, ", "))
				}
				if st.Unconfined {
					row("sandbox", "unconfined (starts outside the kernel sandbox)")
				}
				if o := st.OAuth; o != nil {
					row("oauth", fmt.Sprintf("client %q, secret from $%s, callback port %d, scopes %v", o.ClientID, o.ClientSecretEnv, o.CallbackPort, o.Scopes))
				}
			}
			if kind == mcptool.TransportHTTP {
				row("login", loginSummary(c, s))
			}
			return nil
		},
	}
}

// loginSummary says whether an HTTP server is logged in.
func loginSummary(c *config.Config, s mcptool.ServerConfig) string {
	for k := range s.Headers {
		if strings.EqualFold(k, "Authorization") {
			return "none needed: it sends its own Authorization header"
		}
	}
	creds, err := mcpTokens(c).Load(s.URL)
	switch {
	case err != nil:
		return err.Error()
	case creds == nil:
		return "not logged in (harness9 mcp login NAME, if the server asks for it)"
	}
	return "logged in, " + loginState(creds, time.Now())
}

// loginState says when a login's token expires and whether it renews.
func loginState(c *mcptool.Credentials, now time.Time) string {
	renew := "no refresh token: log in again when it expires"
	if c.RefreshToken != "" {
		renew = "refreshed automatically"
	}
	switch {
	case c.Expiry.IsZero():
		return "the token has no expiry"
	case now.After(c.Expiry):
		return "the token expired; " + renew
	}
	return fmt.Sprintf("the token expires in %s; %s", c.Expiry.Sub(now).Round(time.Minute), renew)
}

// masked shows NAME=VALUE pairs with every value that is not a ${VAR}
// reference hidden.
func masked(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		if !strings.Contains(v, "${") {
			v = "****"
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ", ")
}

// browserOpener opens a page in the user's browser: $BROWSER, else the
// desktop's opener when there is a desktop.
func browserOpener(getenv func(string) string) func(string) error {
	return func(u string) error {
		var argv []string
		switch {
		case getenv("BROWSER") != "":
			first, _, _ := strings.Cut(getenv("BROWSER"), ":")
			argv = strings.Fields(first)
			if i := slices.Index(argv, "%s"); i >= 0 {
				argv[i] = u
			} else {
				argv = append(argv, u)
			}
		case runtime.GOOS == "darwin":
			argv = []string{"open", u}
		case getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != "":
			argv = []string{"xdg-open", u}
		default:
			return errors.New("no desktop here; open the address yourself")
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		if err := cmd.Start(); err != nil {
			return err
		}
		go func() { _ = cmd.Wait() }()
		return nil
	}
}
