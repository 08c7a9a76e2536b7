package cli

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/harness9/harness9/internal/termtext"

	"github.com/spf13/cobra"

	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/skill"
	"github.com/harness9/harness9/tool"
)

// shellQuote quotes s for a POSIX shell when it needs quoting, so a hint
// holding a path can be pasted as it is.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@%,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func isNotFound(err error) bool {
	return errors.Is(err, session.ErrNotFound) || errors.Is(err, session.ErrAmbiguous)
}

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			engines := "local engine"
			if temporalBuiltIn {
				engines = "local and temporal engines"
			}
			fmt.Fprintf(e.stdout, "harness9 %s (%s, %s/%s, %s)\n", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH, engines)
			return nil
		},
	}
}

func newSkillsCmd(e *env, g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "skills", Short: "Skills found in <workdir>/" + tool.DataDirName + "/skills and $HARNESS9_HOME/skills"}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the skills the agent can use",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			c, err := g.load(e, config.Flags{})
			if err != nil {
				return err
			}
			ws, err := projectWorkspace(c, c.Workdir)
			if err != nil {
				return withCode(ExitUsage, fmt.Errorf("workdir: %w", err))
			}
			skills, problems := skill.Discover(ws, c.Home)
			// Skills and servers are the repository's and the servers' text:
			// shown, never obeyed by the terminal.
			stdout, stderr := termtext.Writer(e.stdout), termtext.Writer(e.stderr)
			for _, p := range problems {
				fmt.Fprintf(stderr, "warning: %v\n", p)
			}
			if len(skills) == 0 {
				fmt.Fprintf(e.stderr, "no skills; add one as %s/%s/skills/NAME/SKILL.md\n", c.Workdir, tool.DataDirName)
			}
			for _, s := range skills {
				fmt.Fprintf(stdout, "%-24s %s\n    %s\n", s.Name, s.Description, s.Path)
			}
			return nil
		},
	})
	return cmd
}
