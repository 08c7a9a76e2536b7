package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/harness9/harness9/internal/atomicfile"
	"github.com/harness9/harness9/internal/config"
)

// A cloned repository must not run commands by being opened. Whatever a
// project can make harness9 start (today: the MCP servers of its
// .mcp.json) starts only once the user has trusted that project; the
// answer is kept per workdir in <data>/trust.json, outside the project.

const trustFile = "trust.json"

type trustRecord struct {
	Projects map[string]trustEntry `json:"projects"`
}

type trustEntry struct {
	TrustedAt time.Time `json:"trusted_at"`
	// MCPHash is the SHA-256 of .mcp.json when the user trusted the
	// project: a file changed since (by a pull, or by the agent itself)
	// must be trusted again before its servers start.
	MCPHash string `json:"mcp_sha256,omitempty"`
}

// mcpHash is the SHA-256 of the workdir's .mcp.json, "" when it has none.
func mcpHash(c *config.Config) string {
	b, err := os.ReadFile(filepath.Join(c.Workdir, ".mcp.json"))
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func loadTrust(home string) (trustRecord, error) {
	rec := trustRecord{Projects: map[string]trustEntry{}}
	b, err := os.ReadFile(filepath.Join(home, trustFile))
	if errors.Is(err, fs.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return rec, fmt.Errorf("reading the trusted projects: %w", err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, fmt.Errorf("%s is not valid JSON (move it aside to start over): %w", filepath.Join(home, trustFile), err)
	}
	if rec.Projects == nil {
		rec.Projects = map[string]trustEntry{}
	}
	return rec, nil
}

func saveTrust(home string, rec trustRecord) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("creating the data directory: %w", err)
	}
	root, err := os.OpenRoot(home)
	if err != nil {
		return err
	}
	defer root.Close()
	_, err = atomicfile.Write(root, trustFile, append(b, '\n'))
	return err
}

// projectTrusted reports whether the user trusted c's workdir as it is
// now: its .mcp.json must be the one they trusted. An unreadable record
// counts as untrusted.
func projectTrusted(c *config.Config) bool {
	ok, _ := trustState(c)
	return ok
}

// trustState reports whether the project is trusted and, when it is not
// although it once was, why.
func trustState(c *config.Config) (trusted bool, why string) {
	rec, err := loadTrust(c.Home)
	if err != nil {
		return false, err.Error()
	}
	e, ok := rec.Projects[c.Workdir]
	switch {
	case !ok:
		return false, "the project is not trusted"
	case e.MCPHash != mcpHash(c):
		return false, ".mcp.json changed since you trusted the project"
	}
	return true, ""
}

// projectMCPNames lists the servers the workdir's .mcp.json defines.
func projectMCPNames(c *config.Config) []string {
	servers, err := projectMCP(c)
	if err != nil {
		return nil
	}
	var names []string
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func newTrustCmd(e *env, g *globals) *cobra.Command {
	var revoke, list bool
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Trust this project, so that the MCP servers of its .mcp.json may start",
		Long: "A cloned repository must not run commands by being opened: the MCP servers a project's\n" +
			".mcp.json defines start only after you trust the project (-C DIR, default the current\n" +
			"directory). Read its .mcp.json first. --revoke takes the trust back; --list shows the trusted projects.",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			c, err := g.load(e, config.Flags{})
			if err != nil {
				return err
			}
			rec, err := loadTrust(c.Home)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			switch {
			case list:
				dirs := slices.Sorted(func(yield func(string) bool) {
					for d := range rec.Projects {
						if !yield(d) {
							return
						}
					}
				})
				for _, d := range dirs {
					fmt.Fprintf(e.stdout, "%s\t%s\n", d, rec.Projects[d].TrustedAt.Format(time.RFC3339))
				}
				return nil
			case revoke:
				delete(rec.Projects, c.Workdir)
			default:
				rec.Projects[c.Workdir] = trustEntry{TrustedAt: time.Now().UTC(), MCPHash: mcpHash(c)}
			}
			if err := saveTrust(c.Home, rec); err != nil {
				return withCode(ExitUsage, fmt.Errorf("saving the trusted projects in %s: %w", c.Home, err))
			}
			if revoke {
				fmt.Fprintf(e.stdout, "%s is no longer trusted\n", c.Workdir)
			} else {
				names := projectMCPNames(c)
				fmt.Fprintf(e.stdout, "%s is trusted", c.Workdir)
				if len(names) > 0 {
					fmt.Fprintf(e.stdout, "; its .mcp.json servers will start: %v", names)
				}
				fmt.Fprintln(e.stdout)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&revoke, "revoke", false, "take the trust back")
	cmd.Flags().BoolVar(&list, "list", false, "list the trusted projects")
	return cmd
}
