// Package skill discovers Agent Skills (folders holding a SKILL.md with YAML
// frontmatter), renders their index for the system prompt, serves their
// bodies through the use_skill tool, and loads AGENTS.md project notes: the
// workdir's for the system prompt, nested ones when the model touches files
// below them.
package skill

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harness9/harness9/internal/lib/names"
	"github.com/harness9/harness9/tool"
	"go.yaml.in/yaml/v3"
)

// FileName is the file that makes a folder a skill.
const FileName = "SKILL.md"

// maxSkillFile caps how much of a SKILL.md is read.
const maxSkillFile = 256 << 10

// Source says where a skill was found.
type Source string

// The places skills are discovered, in precedence order.
const (
	SourceProject Source = "project" // <workdir>/.harness9/skills
	SourceUser    Source = "user"    // <home>/skills
)

// Skill is one discovered skill.
type Skill struct {
	// Name and Description come from the frontmatter.
	Name        string
	Description string
	// Dir is the skill's folder (absolute); Path its SKILL.md.
	Dir, Path string
	Source    Source
	// Body is SKILL.md without its frontmatter.
	Body string

	// ws is the workspace the skill was found in (the workdir for a project
	// skill, the user's skills directory for a user skill) and rel its
	// folder relative to that root: use_skill reads the folder's files
	// through it, so they get the same checks the SKILL.md got.
	ws  *tool.Workspace
	rel string
}

// frontmatter is the part of the Agent Skills frontmatter harness9 uses;
// other keys (license, allowed-tools, metadata ...) are accepted and ignored.
type frontmatter struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

// validName is the naming rule of this kind of file (internal/names).
func validName(name string) bool { return names.Valid(name, true, "._-") }

// Discover finds the skills in .harness9/skills/*/SKILL.md of the project
// workspace and <home>/skills/*/SKILL.md (home is the harness9 data
// directory). A project skill wins over a user skill of the same name.
// Skills are returned sorted by name. A skill that cannot be read or has
// bad frontmatter is skipped and reported in the returned errors; missing
// directories are not errors. project may be nil and home "".
//
// Project skills are read through project, so a planted .harness9 or skill
// folder linking out of the workdir, a SKILL.md linking into the
// workspace's deny list, or a FIFO, is not read. User skills are read
// beneath <home>/skills.
func Discover(project *tool.Workspace, home string) ([]Skill, []error) {
	var skills []Skill
	var errs []error
	seen := map[string]string{} // name -> SKILL.md that claimed it
	type root struct {
		ws  *tool.Workspace
		dir string // the skills directory, relative to ws
		src Source
	}
	var roots []root
	if project != nil {
		roots = append(roots, root{project, filepath.Join(tool.DataDirName, "skills"), SourceProject})
	}
	if home != "" {
		// The user's own data directory: no deny list (it is in it), but
		// nothing outside <home>/skills can be reached from a skill.
		if ws, err := tool.NewWorkspace(filepath.Join(home, "skills"), tool.WithHome("")); err == nil {
			roots = append(roots, root{ws, ".", SourceUser})
		}
	}
	for _, r := range roots {
		found, rootErrs := discoverIn(r.ws, r.dir, r.src)
		errs = append(errs, rootErrs...)
		// Within one root, a skill in a folder of its own name wins a clash.
		slices.SortStableFunc(found, func(a, b Skill) int {
			return boolRank(filepath.Base(a.Dir) != a.Name) - boolRank(filepath.Base(b.Dir) != b.Name)
		})
		for _, s := range found {
			if prev, dup := seen[s.Name]; dup {
				if filepath.Dir(filepath.Dir(prev)) == filepath.Dir(s.Dir) {
					errs = append(errs, fmt.Errorf("skill %s: name %q is already used by %s; skipped", s.Path, s.Name, prev))
				}
				continue // a user skill shadowed by a project skill is not an error
			}
			seen[s.Name] = s.Path
			skills = append(skills, s)
		}
	}
	slices.SortFunc(skills, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	return skills, errs
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// discoverIn reads every <dir>/*/SKILL.md in ws, in directory order.
func discoverIn(ws *tool.Workspace, dir string, src Source) ([]Skill, []error) {
	entries, err := ws.ReadDir(dir)
	if err != nil {
		return nil, []error{fmt.Errorf("skills directory %s: %w", filepath.Join(ws.Root(), dir), err)}
	}
	var skills []Skill
	var errs []error
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		folder := filepath.Join(dir, e.Name())
		if fi, err := ws.Stat(folder); err != nil || !fi.IsDir() {
			continue // a stray file, a broken link or one leading out is not a skill
		}
		s, err := load(ws, filepath.Join(folder, FileName))
		if errors.Is(err, fs.ErrNotExist) {
			continue // a folder without SKILL.md is not a skill
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("skill %s skipped: %w", filepath.Join(ws.Root(), folder, FileName), err))
			continue
		}
		s.Source = src
		skills = append(skills, s)
	}
	return skills, errs
}

// Load reads one SKILL.md. It fails when the file cannot be read, has no
// frontmatter, or lacks a valid name or a description. The skill's folder
// (the file's directory) is the only place use_skill reads from.
func Load(path string) (Skill, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Skill{}, err
	}
	ws, err := tool.NewWorkspace(filepath.Dir(abs), tool.WithHome(""))
	if err != nil {
		return Skill{}, err
	}
	return load(ws, filepath.Base(abs))
}

// load reads the SKILL.md at path, relative to ws's root.
func load(ws *tool.Workspace, path string) (Skill, error) {
	data, truncated, err := ws.ReadFile(path, maxSkillFile)
	if err != nil {
		return Skill{}, err
	}
	fm, body, err := splitFrontmatter(data)
	if err != nil {
		return Skill{}, err
	}
	var meta frontmatter
	if err := yaml.Unmarshal(fm, &meta); err != nil {
		return Skill{}, fmt.Errorf("frontmatter is not valid YAML: %w", err)
	}
	meta.Name = strings.TrimSpace(meta.Name)
	meta.Description = strings.Join(strings.Fields(meta.Description), " ")
	switch {
	case meta.Name == "":
		return Skill{}, errors.New("frontmatter has no name")
	case !validName(meta.Name):
		return Skill{}, fmt.Errorf("name %q is not valid: use up to 64 letters, digits, '-', '_' or '.'", meta.Name)
	case meta.Description == "":
		return Skill{}, errors.New("frontmatter has no description")
	}
	b := strings.TrimSpace(string(body))
	if truncated {
		b += fmt.Sprintf("\n\n[SKILL.md truncated at %d bytes]", maxSkillFile)
	}
	rel := filepath.Dir(path)
	dir := filepath.Join(ws.Root(), rel)
	return Skill{
		Name: meta.Name, Description: meta.Description,
		Dir: dir, Path: filepath.Join(dir, filepath.Base(path)), Body: b,
		ws: ws, rel: rel,
	}, nil
}

// SplitFrontmatter separates a markdown file's YAML frontmatter from its
// body, as SKILL.md files are read: "---\n<yaml>\n---\n<body>", with a
// UTF-8 BOM and CRLF line endings accepted. Other packages reading
// markdown files with frontmatter (custom commands) use it too.
func SplitFrontmatter(data []byte) (fm, body []byte, err error) { return splitFrontmatter(data) }

// splitFrontmatter separates "---\n<yaml>\n---\n<body>". A UTF-8 BOM and CRLF
// line endings are accepted.
func splitFrontmatter(data []byte) (fm, body []byte, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	rest, ok := bytes.CutPrefix(data, []byte("---\n"))
	if !ok {
		return nil, nil, errors.New("no YAML frontmatter: the file must start with a '---' line, then name: and description:, then '---'")
	}
	if bytes.HasPrefix(rest, []byte("---\n")) || bytes.Equal(rest, []byte("---")) {
		return nil, nil, errors.New("frontmatter is empty")
	}
	end := bytes.Index(rest, []byte("\n---\n"))
	switch {
	case end >= 0:
		return rest[:end], rest[end+5:], nil
	case bytes.HasSuffix(rest, []byte("\n---")):
		return rest[:len(rest)-4], nil, nil
	}
	return nil, nil, errors.New("frontmatter is not closed by a '---' line")
}

// Index renders the skills as a short markdown block for the system prompt:
// names and descriptions only, the bodies are loaded with use_skill. It
// returns "" when there are no skills.
func Index(skills []Skill) string {
	if len(skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Skills\n")
	b.WriteString("Skills are instructions for specific tasks. When a task matches a skill's description, call use_skill with its name first and follow what it says.\n\n")
	for _, s := range skills {
		fmt.Fprintf(&b, "- %s: %s\n", s.Name, clipRunes(s.Description, 300))
	}
	return strings.TrimRight(b.String(), "\n")
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
