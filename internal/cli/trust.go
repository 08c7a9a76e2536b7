package cli

import (
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/internal/termtext"
	"github.com/harness9/harness9/internal/trust"
	"github.com/harness9/harness9/tool"
)

// A cloned repository must not run commands by being opened. Whatever a
// project can make harness9 start (the MCP servers of its .mcp.json; the
// hooks of its .harness9/config.toml) starts only once the user has
// trusted that project (package trust keeps the decision, outside the
// project).

// projectManifest lists what c's project would enable once trusted. A
// .mcp.json that cannot be read is an error: the user should see it
// rather than a silent "nothing to trust".
func projectManifest(c *config.Config) (trust.Manifest, error) {
	m := trust.Manifest{Hash: trust.HashFiles(c.Workdir)}
	// As written: the user sees ${GITHUB_TOKEN}, not the token, and
	// sees which of their variables the server would be given.
	servers, err := projectMCP(c, nil)
	if err != nil {
		return m, err
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range servers {
			if !yield(n) {
				return
			}
		}
	}) {
		s := servers[name]
		detail := s.URL
		if detail == "" {
			detail = shellQuote(s.Command)
			for _, a := range s.Args {
				detail += " " + shellQuote(a)
			}
		}
		detail += describeMap(" env: ", s.Env) + describeMap(" headers: ", s.Headers)
		m.Items = append(m.Items, trust.Item{Kind: "MCP server", Name: name, Detail: detail})
	}
	for _, h := range c.Hooks.Project {
		name := string(h.Event)
		if h.Matcher != "" {
			name += " " + h.Matcher
		}
		m.Items = append(m.Items, trust.Item{Kind: "hook", Name: name, Detail: h.Command})
	}
	return m, nil
}

// trustState reports whether the project's servers and hooks may run now
// and, when they may not, why.
func trustState(c *config.Config) (trusted bool, why string) {
	if c.TrustProject {
		return true, "trusted for this invocation (--trust-project)"
	}
	st, err := trust.NewStore(c.Home).State(c.Workdir, trust.HashFiles(c.Workdir))
	if err != nil {
		return false, err.Error()
	}
	return st.Trusted(), st.Why()
}

// projectTrusted reports whether the project's servers and hooks may run.
func projectTrusted(c *config.Config) bool {
	ok, _ := trustState(c)
	return ok
}

// untrustedNotice is what a run says when it leaves a project's servers
// and hooks out, or "" when there is nothing to say.
func untrustedNotice(c *config.Config) string {
	m, err := projectManifest(c)
	if err != nil {
		return fmt.Sprintf("this project's .mcp.json cannot be read, so none of its servers start: %v", err)
	}
	if m.Empty() {
		return ""
	}
	ok, why := trustState(c)
	if ok {
		return ""
	}
	return fmt.Sprintf("not started: %s (%s); read them, then run `harness9 trust` in %s, or pass --trust-project for one run",
		manifestSummary(m), why, c.Workdir)
}

// printManifest shows what trusting the project enables.
// The items are the repository's text, as written: shown, never obeyed by
// the terminal, so a command cannot hide behind a cursor move.
func printManifest(w io.Writer, m trust.Manifest) {
	for _, it := range m.Items {
		fmt.Fprintf(w, "  %s\n", termtext.Clean(it.String()))
	}
}

func newTrustCmd(e *env, g *globals) *cobra.Command {
	var revoke, list bool
	cmd := &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust a project, so that its .mcp.json servers and hooks may run",
		Long: "A cloned repository must not run commands by being opened: the MCP servers of a project's\n" +
			".mcp.json and the hooks of its " + tool.DataDirName + "/config.toml run only after you trust the project\n" +
			"(DIR, or -C DIR, default the current directory). Read those files first. A change to them asks\n" +
			"again. --revoke takes the trust back; --list shows every stored decision.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				if g.workdir != "" && g.workdir != args[0] {
					return usageErr("give the project either as DIR or with -C, not both")
				}
				g.workdir = args[0]
			}
			c, err := g.load(e, config.Flags{})
			if err != nil {
				return err
			}
			store := trust.NewStore(c.Home)
			switch {
			case list:
				all, err := store.List()
				if err != nil {
					return withCode(ExitUsage, err)
				}
				for _, l := range all {
					fmt.Fprintf(e.stdout, "%s\t%s\t%s\n", l.Workdir, l.Decision, l.DecidedAt.Format(time.RFC3339))
				}
				return nil
			case revoke:
				had, err := store.Forget(c.Workdir)
				if err != nil {
					return withCode(ExitUsage, err)
				}
				if !had {
					fmt.Fprintf(e.stdout, "%s had no stored decision\n", c.Workdir)
					return nil
				}
				fmt.Fprintf(e.stdout, "%s is no longer trusted\n", c.Workdir)
				return nil
			}
			m, err := projectManifest(c)
			if err != nil {
				return withCode(ExitUsage, fmt.Errorf("%s: %w", filepath.Join(c.Workdir, ".mcp.json"), err))
			}
			if err := store.Decide(c.Workdir, trust.Trusted, m.Hash, time.Now()); err != nil {
				return withCode(ExitUsage, err)
			}
			fmt.Fprintf(e.stdout, "%s is trusted", c.Workdir)
			if m.Empty() {
				fmt.Fprintln(e.stdout, "; it has no MCP servers or hooks yet")
				return nil
			}
			fmt.Fprintln(e.stdout, "; these will run:")
			printManifest(e.stdout, m)
			return nil
		},
	}
	cmd.Flags().BoolVar(&revoke, "revoke", false, "take the trust back")
	cmd.Flags().BoolVar(&list, "list", false, "list the stored decisions")
	cmd.MarkFlagsMutuallyExclusive("revoke", "list")
	return cmd
}

// describeMap shows the entries of a server's env or headers, sorted,
// after label; "" when there are none. A header that would carry one of
// the user's variables (${OPENAI_API_KEY}) to a URL is what the user must
// see before trusting.
func describeMap(label string, m map[string]string) string {
	if len(m) == 0 {
		return ""
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+m[k])
	}
	return ";" + label + strings.Join(parts, " ")
}
