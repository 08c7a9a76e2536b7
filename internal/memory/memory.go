// Package memory is the TUI's "# note" memory: notes the user adds land as
// "- note" lines in the project's AGENTS.md or in their own
// $HARNESS9_HOME/AGENTS.md (asked once per project, remembered in
// $HARNESS9_HOME/memory.json), and both files go into the system prompt.
package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/harness9/harness9/internal/lib/atomicfile"
	"github.com/harness9/harness9/skill"
	"github.com/harness9/harness9/tool"
)

// Target is where a note goes.
type Target string

// The two targets.
const (
	Project Target = "project" // <workdir>/AGENTS.md
	User    Target = "user"    // $HARNESS9_HOME/AGENTS.md
)

// choicesFile holds the target chosen per project, in the data dir.
const choicesFile = "memory.json"

// maxFile caps how much of an AGENTS.md a note is appended to.
const maxFile = 1 << 20

// Book finds and changes the memory files of one workdir.
type Book struct {
	workdir, home string
	open          func(dir string) (*tool.Workspace, error)
}

// New returns the Book of workdir with the data dir home.
func New(workdir, home string) Book { return Book{workdir: workdir, home: home} }

// WithWorkspace returns b opening the project as open does: as the model
// sees it (the CLI's workspace: the user's home deny list, git's files).
// Without it the project is opened with only the data directory denied.
func (b Book) WithWorkspace(open func(dir string) (*tool.Workspace, error)) Book {
	b.open = open
	return b
}

// Path is the file a target writes to.
func (b Book) Path(t Target) string {
	if t == User {
		return filepath.Join(b.home, skill.AgentsFile)
	}
	return filepath.Join(b.workdir, skill.AgentsFile)
}

// workspace is where t's file is opened: the workdir (with the data dir
// denied, as for every file tool) or the data dir itself.
func (b Book) workspace(t Target) (*tool.Workspace, error) {
	if t == User {
		if err := os.MkdirAll(b.home, 0o700); err != nil {
			return nil, fmt.Errorf("cannot create the data directory %s: %w", b.home, err)
		}
		return tool.NewWorkspace(b.home, tool.WithHome(""))
	}
	if b.open != nil {
		return b.open(b.workdir)
	}
	return tool.NewWorkspace(b.workdir, tool.WithDenied(b.home))
}

// Choice returns the target remembered for this project, if any.
func (b Book) Choice() (Target, bool) {
	m := b.choices()
	t, ok := m[b.workdir]
	return t, ok && (t == Project || t == User)
}

// Remember stores t as this project's target.
func (b Book) Remember(t Target) error {
	m := b.choices()
	m[b.workdir] = t
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(b.home, 0o700); err != nil {
		return fmt.Errorf("cannot remember where notes go: %w", err)
	}
	root, err := os.OpenRoot(b.home)
	if err != nil {
		return fmt.Errorf("cannot remember where notes go: %w", err)
	}
	defer root.Close()
	if _, err := atomicfile.Write(root, choicesFile, data); err != nil {
		return fmt.Errorf("cannot remember where notes go (%s): %w", filepath.Join(b.home, choicesFile), err)
	}
	return nil
}

// choices reads the remembered targets; a missing or broken file is none.
func (b Book) choices() map[string]Target {
	m := map[string]Target{}
	data, err := os.ReadFile(filepath.Join(b.home, choicesFile))
	if err == nil {
		_ = json.Unmarshal(data, &m)
	}
	return m
}

// Add appends note as a "- note" line to t's AGENTS.md, creating it when
// absent, through a Workspace (a planted link cannot send it elsewhere). It
// returns the file's path.
func (b Book) Add(t Target, note string) (string, error) {
	note = Normalize(note)
	if note == "" {
		return "", errors.New("the note is empty: type it after the #")
	}
	ws, err := b.workspace(t)
	if err != nil {
		return "", err
	}
	data, truncated, err := ws.ReadFile(skill.AgentsFile, maxFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = nil
	case err != nil:
		return "", fmt.Errorf("cannot read %s: %w", b.Path(t), err)
	case truncated:
		return "", fmt.Errorf("%s is larger than %d bytes; add the note by hand", b.Path(t), maxFile)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	data = append(data, "- "+note+"\n"...)
	if _, err := ws.WriteFile(skill.AgentsFile, data); err != nil {
		return "", fmt.Errorf("cannot write %s: %w", b.Path(t), err)
	}
	return b.Path(t), nil
}

// Normalize is the note as it will be written: one line, without the
// leading '#' and spaces.
func Normalize(note string) string {
	note = strings.TrimLeft(strings.TrimSpace(note), "#")
	return strings.Join(strings.Fields(note), " ")
}

// File is a memory file in use and its "- " notes.
type File struct {
	Path  string
	Notes []string
}

// Files lists the memory files the system prompt reads: the project's
// (AGENTS.md, else CLAUDE.md or GEMINI.md) and the user's.
func (b Book) Files() []File {
	var out []File
	if name, content := b.projectMemory(); name != "" {
		out = append(out, File{Path: filepath.Join(b.workdir, name), Notes: notes(content)})
	}
	if content := skill.LoadUserAgentsMD(b.home, 0); content != "" {
		out = append(out, File{Path: b.Path(User), Notes: notes(content)})
	}
	return out
}

func notes(content string) []string {
	var out []string
	for line := range strings.Lines(content) {
		if n, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
			out = append(out, n)
		}
	}
	return out
}

// projectMemory is the project's memory file and its content, or "".
func (b Book) projectMemory() (name, content string) {
	ws, err := b.workspace(Project)
	if err != nil {
		return "", ""
	}
	return skill.LoadMemory(ws, 0)
}
