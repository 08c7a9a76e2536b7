// Package subagent defines sub-agents: what a child agent started by the
// task tool may do (its Definition, built in or read from markdown files
// with YAML frontmatter) and the task tool itself. Running a child is left
// to the tool's consumer through the Runner interface, so this package
// knows nothing of engines; harness9's agent package implements Runner.
package subagent

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/harness9/harness9/internal/lib/names"
	"github.com/harness9/harness9/skill"
	"github.com/harness9/harness9/tool"
)

// Names of the built-in definitions.
const (
	Explore = "explore"
	General = "general"
)

// Definition says what a sub-agent is for and what it may use.
type Definition struct {
	Name        string
	Description string
	// Tools names the tools the child may use, further restricted to what
	// the parent may use at the time; nil means every tool the parent may
	// use.
	Tools []string
	// ReadOnly restricts the child to tools that change nothing: it runs
	// under Plan Mode's gate and the read-only sandbox policy, and it is
	// the only kind of sub-agent Plan Mode may start.
	ReadOnly bool
	// Model is the model name the child uses; "" means the parent's.
	Model string
	// Prompt is added to the child's system prompt (the markdown body of
	// a user definition).
	Prompt string
	// Source is "builtin" or the file the definition was read from.
	Source string
}

// Builtins returns the built-in definitions: explore (read-only, the
// default) and general (the parent's tools).
func Builtins() []Definition {
	return []Definition{
		{
			Name:        Explore,
			Description: "Read-only research: finds files, reads code, runs read-only commands and reports what it found. Usable in Plan Mode.",
			ReadOnly:    true,
			Prompt: "You are a sub-agent exploring a codebase for another agent. You can only read. " +
				"Answer the task precisely and briefly: name the files and lines that matter.",
			Source: "builtin",
		},
		{
			Name:        General,
			Description: "A general sub-agent with the parent's tools, for a self-contained piece of work. Not available in Plan Mode.",
			Prompt: "You are a sub-agent doing one self-contained task for another agent. " +
				"Do the task, then answer with a short report of what you did and found.",
			Source: "builtin",
		},
	}
}

// FileExt is the extension of definition files in an agents directory.
const FileExt = ".md"

// maxFile caps a definition file.
const maxFile = 64 << 10

// validName is the naming rule of this kind of file (internal/names).
func validName(name string) bool { return names.Valid(name, false, "_-") }

type frontmatter struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	Tools       []string `yaml:"tools"`
	Model       string   `yaml:"model"`
	ReadOnly    bool     `yaml:"read_only"`
}

// Parse reads a definition from markdown with YAML frontmatter (name,
// description, optional tools, model, read_only); the body becomes the
// child's instructions.
func Parse(data []byte) (Definition, error) {
	fm, body, err := skill.SplitFrontmatter(data)
	if err != nil {
		return Definition{}, err
	}
	var meta frontmatter
	if err := yaml.Unmarshal(fm, &meta); err != nil {
		return Definition{}, fmt.Errorf("frontmatter is not valid YAML: %w", err)
	}
	if !validName(meta.Name) {
		return Definition{}, fmt.Errorf("name %q is not valid: use 1-64 lower-case letters, digits, '-' or '_'", meta.Name)
	}
	if strings.TrimSpace(meta.Description) == "" {
		return Definition{}, errors.New("description is missing: say in one line what the sub-agent is for")
	}
	d := Definition{
		Name: meta.Name, Description: strings.TrimSpace(meta.Description), Model: strings.TrimSpace(meta.Model),
		ReadOnly: meta.ReadOnly, Prompt: strings.TrimSpace(string(body)),
	}
	if meta.Tools != nil {
		d.Tools = []string{}
		for _, t := range meta.Tools {
			if t = strings.TrimSpace(t); t != "" && !slices.Contains(d.Tools, t) {
				d.Tools = append(d.Tools, t)
			}
		}
	}
	return d, nil
}

// Discover returns the built-in definitions followed by those in
// .harness9/agents/*.md of the project workspace and <home>/agents/*.md. A project
// definition wins over a user one of the same name. The built-in names are
// reserved: a file cannot turn explore, which Plan Mode trusts to be
// read-only, into something else. Files that cannot be read or parsed are skipped and reported;
// missing directories are not errors. project may be nil and home "".
//
// Project files are read through project, so a link planted in a
// repository cannot make harness9 read outside it or a file on its deny
// list.
func Discover(project *tool.Workspace, home string) ([]Definition, []error) {
	var found, errs = []Definition{}, []error{}
	if project != nil {
		d, e := discoverIn(project, filepath.Join(tool.DataDirName, "agents"))
		found, errs = append(found, d...), append(errs, e...)
	}
	if home != "" {
		if ws, err := tool.NewWorkspace(filepath.Join(home, "agents"), tool.WithHome("")); err == nil {
			d, e := discoverIn(ws, ".")
			found, errs = append(found, d...), append(errs, e...)
		}
	}
	out := Builtins()
	seen := map[string]bool{}
	for _, d := range found {
		if seen[d.Name] {
			continue // a user definition shadowed by a project one
		}
		seen[d.Name] = true
		if slices.ContainsFunc(out, func(b Definition) bool { return b.Name == d.Name }) {
			errs = append(errs, fmt.Errorf("sub-agent %s skipped: %q is a built-in sub-agent; choose another name", d.Source, d.Name))
			continue
		}
		out = append(out, d)
	}
	return out, errs
}

func discoverIn(ws *tool.Workspace, dir string) ([]Definition, []error) {
	entries, err := ws.ReadDir(dir)
	if err != nil {
		return nil, []error{fmt.Errorf("agents directory %s: %w", filepath.Join(ws.Root(), dir), err)}
	}
	var defs []Definition
	var errs []error
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), FileExt) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, truncated, err := ws.ReadFile(path, maxFile)
		if err == nil && truncated {
			err = fmt.Errorf("larger than %d bytes", maxFile)
		}
		var def Definition
		if err == nil {
			def, err = Parse(data)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("sub-agent %s skipped: %w", filepath.Join(ws.Root(), path), err))
			continue
		}
		def.Source = filepath.Join(ws.Root(), path)
		defs = append(defs, def)
	}
	return defs, errs
}
