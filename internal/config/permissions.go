package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/harness9/harness9/internal/lib/atomicfile"
	"github.com/harness9/harness9/permission"
	"github.com/harness9/harness9/tool"
)

// Permission rules come from four places (DESIGN §7.2): [permissions] in
// the user's config.toml; the project's <workdir>/.harness9/config.toml,
// which may only add ask and deny rules (a cloned repository must not
// grant itself powers); "always allow for this project" answers, kept in
// <data>/permissions/ outside the project; --allow and --deny.

// ProjectConfigFile is a project's own config file, relative to its workdir.
const ProjectConfigFile = tool.DataDirName + "/config.toml"

// RuleList is one list of rules from one source.
type RuleList struct {
	Action permission.Action
	Source string // the file, "--allow", ...
	Rules  []string
}

type permissionsFile struct {
	Allow []string `toml:"allow"`
	Ask   []string `toml:"ask"`
	Deny  []string `toml:"deny"`
}

// projectFile mirrors a project's config file: [permissions] and the
// [[hooks.EVENT]] tables (not hooks.unconfined, which only the user may
// set).
type projectFile struct {
	Permissions permissionsFile `toml:"permissions"`
	Hooks       hookLists       `toml:"hooks"`
}

// projectAllowFile mirrors an always-allow record.
type projectAllowFile struct {
	Workdir string   `toml:"workdir"`
	Allow   []string `toml:"allow"`
}

// addRules checks rules and appends them as one list. A malformed rule is
// an error naming it and the source.
func (c *Config) addRules(a permission.Action, source string, rules []string) error {
	if len(rules) == 0 {
		return nil
	}
	for _, r := range rules {
		if _, err := permission.Parse(r); err != nil {
			return fmt.Errorf("%s: %s rule: %w", source, a, err)
		}
	}
	c.Permissions = append(c.Permissions, RuleList{Action: a, Source: source, Rules: rules})
	return nil
}

// applyPermissions reads [permissions] of the user's config.toml.
func (c *Config) applyPermissions(p permissionsFile) error {
	for _, l := range []struct {
		a     permission.Action
		rules []string
	}{{permission.Allow, p.Allow}, {permission.Ask, p.Ask}, {permission.Deny, p.Deny}} {
		if err := c.addRules(l.a, c.File, l.rules); err != nil {
			return err
		}
	}
	return nil
}

// loadPermissions adds the project's rules, the always-allow answers and
// the flags' rules, after the user's config file.
func (c *Config) loadPermissions(flags Flags) error {
	path := filepath.Join(c.Workdir, ProjectConfigFile)
	if data, err := os.ReadFile(path); err == nil {
		f, err := c.readProjectFile(path, data)
		if err != nil {
			return err
		}
		if c.Hooks.Project, err = parseHooks(f.Hooks, path, c.Workdir); err != nil {
			return err
		}
		if len(f.Permissions.Allow) > 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: permissions.allow is ignored: a project may only add ask and deny rules "+
				"(allow them yourself in %s or with --allow): %s", path, c.File, strings.Join(f.Permissions.Allow, ", ")))
		}
		if err := c.addRules(permission.Ask, path, f.Permissions.Ask); err != nil {
			return err
		}
		if err := c.addRules(permission.Deny, path, f.Permissions.Deny); err != nil {
			return err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot read %s: %w", path, err)
	}
	saved, err := c.projectAllows()
	if err != nil {
		return err
	}
	if err := c.addRules(permission.Allow, c.ProjectAllowFile(), saved); err != nil {
		return fmt.Errorf("%w (edit or delete the file)", err)
	}
	if err := c.addRules(permission.Allow, "--allow", flags.Allow); err != nil {
		return err
	}
	return c.addRules(permission.Deny, "--deny", flags.Deny)
}

// projectSections are the tables a project's config file may hold; every
// other key is ignored with a warning, because a cloned repository must
// not configure what runs or where the user's keys are sent.
var projectSections = map[string]bool{"permissions": true, "hooks": true}

// readProjectFile decodes a project's config file. Keys a project may not
// set are dropped with a warning rather than refused, so that a repository
// written for a newer harness9, or a hostile one, never stops the user's
// run; what is kept is decoded strictly, so a typo in a rule is an error.
func (c *Config) readProjectFile(path string, data []byte) (projectFile, error) {
	var f projectFile
	var raw map[string]any
	if err := toml.Unmarshal(data, &raw); err != nil {
		return f, fmt.Errorf("%s: %w", path, err)
	}
	var ignored []string
	for k := range raw {
		if !projectSections[k] {
			ignored = append(ignored, k)
			delete(raw, k)
		}
	}
	if h, ok := raw["hooks"].(map[string]any); ok {
		if _, set := h["unconfined"]; set {
			// Only the user may let hooks run outside the sandbox.
			delete(h, "unconfined")
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: ignored hooks.unconfined: only your own %s can let hooks run without the kernel sandbox", path, c.File))
		}
	}
	if len(ignored) > 0 {
		sort.Strings(ignored)
		why := "a project's config may only add permission ask and deny rules and hooks"
		for _, k := range ignored {
			if k == "providers" || k == "model" || k == "env" {
				why = "provider settings, models and environment are never taken from a project, trusted or not (set them in " + c.File + ")"
				break
			}
		}
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: ignored %s: %s", path, strings.Join(ignored, ", "), why))
	}
	kept, err := toml.Marshal(raw)
	if err != nil {
		return f, fmt.Errorf("%s: %w", path, err)
	}
	dec := toml.NewDecoder(strings.NewReader(string(kept)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("%s: %w (a project's [permissions] may hold ask and deny lists, its [hooks] [[hooks.EVENT]] tables)", path, err)
	}
	return f, nil
}

// PermissionRules builds the rules in effect, every source together.
func (c *Config) PermissionRules() (*permission.Rules, error) {
	rs := permission.New(c.Workdir)
	for _, l := range c.Permissions {
		if err := rs.Add(l.Action, l.Source, l.Rules...); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// ProjectAllowFile is where "always allow for this project" answers for
// the workdir are kept: in the data directory, named by a hash of the
// workdir, so a project cannot write its own.
func (c *Config) ProjectAllowFile() string {
	sum := sha256.Sum256([]byte(c.Workdir))
	return filepath.Join(c.Home, "permissions", hex.EncodeToString(sum[:8])+".toml")
}

func (c *Config) projectAllows() ([]string, error) {
	data, err := os.ReadFile(c.ProjectAllowFile())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the always-allowed rules of this project: %w", err)
	}
	var f projectAllowFile
	if err := toml.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w (edit or delete the file)", c.ProjectAllowFile(), err)
	}
	if f.Workdir != c.Workdir {
		// Another workdir with the same hash prefix: not this project's.
		return nil, nil
	}
	return f.Allow, nil
}

// SaveProjectAllow adds rules to the always-allowed rules of the workdir.
func (c *Config) SaveProjectAllow(rules []string) error {
	have, err := c.projectAllows()
	if err != nil {
		return err
	}
	for _, r := range rules {
		if !slices.Contains(have, r) {
			have = append(have, r)
		}
	}
	data, err := toml.Marshal(projectAllowFile{Workdir: c.Workdir, Allow: have})
	if err != nil {
		return err
	}
	dir := filepath.Dir(c.ProjectAllowFile())
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	header := "# Rules harness9 allows without asking in " + c.Workdir + " (\"always for this project\" answers).\n"
	_, err = atomicfile.Write(root, filepath.Base(c.ProjectAllowFile()), append([]byte(header), data...))
	return err
}
