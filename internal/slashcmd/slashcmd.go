// Package slashcmd reads custom slash commands: markdown files whose body
// is a prompt template, called as "/name args" in the TUI and in
// `harness9 run "/name args"`. The file's YAML frontmatter is optional:
//
//	---
//	description: Review a pull request
//	argument-hint: <number> [focus]
//	model: anthropic/claude-sonnet-4-5
//	allowed-tools: read_file, bash(git diff:*)
//	---
//	Review pull request #$1, focusing on $2. Everything given: $ARGUMENTS
//
// A command is a prompt and nothing more: nothing in its file is run, and
// its allowed-tools can only narrow what the model may use for that
// prompt, never widen it, so a command from a cloned repository gains no
// power by being called.
package slashcmd

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/harness9/harness9/internal/lib/names"
	"github.com/harness9/harness9/permission"
	"github.com/harness9/harness9/skill"
	"github.com/harness9/harness9/tool"
)

// Dir is where commands live, below the project's .harness9 directory and
// below the user's data directory.
const Dir = "commands"

// maxFile caps a command file.
const maxFile = 64 * 1024

// Source says where a command comes from.
type Source string

// The sources.
const (
	SourceUser    Source = "user"
	SourceProject Source = "project"
)

// Command is one custom command.
type Command struct {
	// Name is called with a leading "/"; it is the file's name without .md.
	Name         string
	Description  string
	ArgumentHint string
	// Model is "provider/model" or "model", "" for the session's model.
	Model string
	// AllowedTools are permission rules ("read_file", "bash(git diff:*)");
	// when given, a prompt of this command may use only calls they cover.
	AllowedTools []string
	// Body is the prompt template.
	Body   string
	Path   string
	Source Source
}

// frontmatter mirrors a command file's YAML.
type frontmatter struct {
	Description  string    `yaml:"description"`
	ArgumentHint string    `yaml:"argument-hint"`
	Model        string    `yaml:"model"`
	AllowedTools yaml.Node `yaml:"allowed-tools"`
}

// validName is the naming rule of this kind of file (internal/names).
func validName(name string) bool { return names.Valid(name, true, "_-") }

// Discover finds the commands in .harness9/commands/*.md of the project
// workspace and <home>/commands/*.md (home is the harness9 data directory);
// project may be nil and home "". A command named like one in reserved (the program's built-in
// commands) is skipped with an error: a file never overrides a built-in. A
// user command wins over a project command of the same name, so a cloned
// repository cannot replace a command the user relies on. Commands come
// sorted by name. Project files are read through project: a planted link
// out of it, into its deny list, or a FIFO, is not read.
func Discover(project *tool.Workspace, home string, reserved []string) ([]Command, []error) {
	var out []Command
	var errs []error
	seen := map[string]bool{}
	type root struct {
		ws  *tool.Workspace
		dir string
		src Source
	}
	var roots []root
	if home != "" {
		if ws, err := tool.NewWorkspace(filepath.Join(home, Dir), tool.WithHome("")); err == nil {
			roots = append(roots, root{ws, ".", SourceUser})
		}
	}
	if project != nil {
		roots = append(roots, root{project, filepath.Join(tool.DataDirName, Dir), SourceProject})
	}
	for _, r := range roots {
		found, rerrs := discoverIn(r.ws, r.dir, r.src)
		errs = append(errs, rerrs...)
		for _, c := range found {
			switch {
			case slices.Contains(reserved, "/"+c.Name) || slices.Contains(reserved, c.Name):
				errs = append(errs, fmt.Errorf("command %s skipped: /%s is a built-in command; rename the file", c.Path, c.Name))
			case seen[c.Name]:
				// A project command shadowed by the user's own.
			default:
				seen[c.Name] = true
				out = append(out, c)
			}
		}
	}
	slices.SortFunc(out, func(a, b Command) int { return strings.Compare(a.Name, b.Name) })
	return out, errs
}

func discoverIn(ws *tool.Workspace, dir string, src Source) ([]Command, []error) {
	entries, err := ws.ReadDir(dir)
	if err != nil {
		return nil, []error{fmt.Errorf("commands directory %s: %w", filepath.Join(ws.Root(), dir), err)}
	}
	var out []Command
	var errs []error
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || strings.HasPrefix(e.Name(), ".") || e.IsDir() {
			continue
		}
		path := filepath.Join(ws.Root(), dir, e.Name())
		if !validName(name) {
			errs = append(errs, fmt.Errorf("command %s skipped: name %q may hold only letters, digits, '-' and '_'", path, name))
			continue
		}
		data, truncated, err := ws.ReadFile(filepath.Join(dir, e.Name()), maxFile)
		if err == nil && truncated {
			err = fmt.Errorf("the file is larger than %d bytes", maxFile)
		}
		var c Command
		if err == nil {
			c, err = parse(name, data)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("command %s skipped: %w", path, err))
			continue
		}
		c.Path, c.Source = path, src
		out = append(out, c)
	}
	return out, errs
}

// parse reads a command file: optional frontmatter, then the template.
func parse(name string, data []byte) (Command, error) {
	c := Command{Name: name}
	text := strings.TrimPrefix(string(data), "\xef\xbb\xbf")
	if !strings.HasPrefix(strings.ReplaceAll(text, "\r\n", "\n"), "---\n") {
		c.Body = strings.TrimSpace(text)
	} else {
		fm, body, err := skill.SplitFrontmatter(data)
		if err != nil {
			return c, err
		}
		var meta frontmatter
		if err := yaml.Unmarshal(fm, &meta); err != nil {
			return c, fmt.Errorf("frontmatter is not valid YAML: %w", err)
		}
		c.Description = strings.Join(strings.Fields(meta.Description), " ")
		c.ArgumentHint = strings.TrimSpace(meta.ArgumentHint)
		c.Model = strings.TrimSpace(meta.Model)
		if c.AllowedTools, err = toolList(&meta.AllowedTools); err != nil {
			return c, err
		}
		c.Body = strings.TrimSpace(string(body))
	}
	if c.Body == "" {
		return c, errors.New("the command has no prompt text")
	}
	return c, nil
}

// toolList reads allowed-tools: a list, or one string of rules separated by
// commas outside parentheses (Claude Code's form). Every rule must parse.
func toolList(n *yaml.Node) ([]string, error) {
	var raw []string
	switch n.Kind {
	case 0:
		return nil, nil
	case yaml.ScalarNode:
		raw = splitTopLevel(n.Value)
	case yaml.SequenceNode:
		if err := n.Decode(&raw); err != nil {
			return nil, fmt.Errorf("allowed-tools: %w", err)
		}
	default:
		return nil, errors.New("allowed-tools must be a list of rules or one string of rules separated by commas")
	}
	var out []string
	for _, r := range raw {
		r = strings.TrimSpace(r)
		if r == "" {
			continue
		}
		if _, err := permission.Parse(r); err != nil {
			return nil, fmt.Errorf("allowed-tools: %w", err)
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, errors.New("allowed-tools is empty; leave it out to allow what the session allows")
	}
	return out, nil
}

// splitTopLevel splits s at commas that are not inside parentheses.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth = max(depth-1, 0)
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// Find returns the command called name (with or without "/"), or nil.
func Find(cmds []Command, name string) *Command {
	name = strings.TrimPrefix(name, "/")
	for i := range cmds {
		if cmds[i].Name == name {
			return &cmds[i]
		}
	}
	return nil
}

// Match reads a line "/name args": the command it calls and its arguments.
// It returns nil for a line that calls none of cmds, which is then an
// ordinary prompt ("/etc/hosts is wrong").
func Match(cmds []Command, line string) (c *Command, args string) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") {
		return nil, ""
	}
	name, rest, _ := strings.Cut(line, " ")
	if i := strings.IndexAny(name, "\n\t"); i >= 0 {
		name, rest = name[:i], line[i:]
	}
	if c = Find(cmds, name); c == nil {
		return nil, ""
	}
	return c, strings.TrimSpace(rest)
}
