package skill

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harness9/harness9/tool"
)

// UseSkillName is the name of the use_skill tool.
const UseSkillName = "use_skill"

const (
	maxListedFiles = 50
	maxWalkedFiles = 5000
	maxSkillRead   = 64 << 10
)

// UseSkillInput is the input of use_skill.
type UseSkillInput struct {
	Name string `json:"name" jsonschema:"the skill's name, as listed in the Skills section of the system prompt"`
	File string `json:"file,omitempty" jsonschema:"optional: a file of the skill's folder to read instead of SKILL.md, as a path relative to that folder (from the list use_skill returned)"`
}

const useSkillDescription = `Load a skill: the instructions in its SKILL.md and the list of the other files in its folder. Call it when a task matches a skill's description in the Skills section, before starting the task, and follow the instructions. To read one of the listed files, call use_skill again with the same name and "file" set to its relative path.`

// NewUseSkillTool returns the read-only use_skill tool serving skills.
func NewUseSkillTool(skills []Skill) tool.Tool {
	byName := make(map[string]Skill, len(skills))
	names := make([]string, 0, len(skills))
	for _, s := range skills {
		if _, dup := byName[s.Name]; !dup {
			names = append(names, s.Name)
		}
		byName[s.Name] = s
	}
	return tool.New(UseSkillName, useSkillDescription, func(_ context.Context, in UseSkillInput) (tool.Result, error) {
		s, ok := byName[strings.TrimSpace(in.Name)]
		if !ok {
			if len(names) == 0 {
				return tool.Errorf("unknown skill %q: no skills are installed", in.Name), nil
			}
			return tool.Errorf("unknown skill %q; known skills: %s", in.Name, strings.Join(names, ", ")), nil
		}
		if in.File != "" {
			return readSkillFile(s, in.File), nil
		}
		return tool.Text(render(s)), nil
	}, tool.AsReadOnly())
}

func render(s Skill) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Skill: %s\nFolder: %s\n\n%s\n", s.Name, s.Dir, s.Body)
	files, more := listFiles(s.Dir)
	if len(files) > 0 {
		b.WriteString("\nOther files in this skill's folder (read one with use_skill {\"name\": \"" + s.Name + "\", \"file\": \"<path>\"}):\n")
		for _, f := range files {
			b.WriteString("- " + f + "\n")
		}
		if more > 0 {
			fmt.Fprintf(&b, "- ... and %d more\n", more)
		}
	}
	return b.String()
}

// listFiles returns up to maxListedFiles regular files below dir (relative,
// slash-separated, shallowest first, SKILL.md and hidden entries excluded)
// and how many more there were.
func listFiles(dir string) (files []string, more int) {
	var all []string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return nil // unreadable entries are simply not listed
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if len(all) >= maxWalkedFiles {
			return filepath.SkipAll
		}
		if rel, err := filepath.Rel(dir, path); err == nil && rel != FileName {
			all = append(all, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.SortStableFunc(all, func(a, b string) int {
		return strings.Count(a, "/") - strings.Count(b, "/")
	})
	if len(all) > maxListedFiles {
		return all[:maxListedFiles], len(all) - maxListedFiles
	}
	return all, 0
}

// readSkillFile returns a file of the skill's folder. The path must stay
// inside the folder, symlinks included.
func readSkillFile(s Skill, rel string) tool.Result {
	if filepath.IsAbs(rel) {
		return tool.Errorf("file %q must be relative to the skill's folder", rel)
	}
	root, err := filepath.EvalSymlinks(s.Dir)
	if err != nil {
		return tool.Errorf("skill %s: folder not readable: %v", s.Name, err)
	}
	path, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return tool.Errorf("skill %s has no file %q (use the paths use_skill listed)", s.Name, rel)
	}
	if r, err := filepath.Rel(root, path); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return tool.Errorf("file %q is outside the skill's folder", rel)
	}
	f, err := os.Open(path)
	if err != nil {
		return tool.Errorf("skill %s: cannot read %q: %v", s.Name, rel, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.IsDir() {
		return tool.Errorf("%q is a directory, not a file", rel)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSkillRead+1))
	if err != nil {
		return tool.Errorf("skill %s: cannot read %q: %v", s.Name, rel, err)
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return tool.Errorf("%q is a binary file", rel)
	}
	out := string(data)
	if len(data) > maxSkillRead {
		out = strings.ToValidUTF8(string(data[:maxSkillRead]), "") + fmt.Sprintf("\n\n[truncated: only the first %d bytes are shown]", maxSkillRead)
	}
	return tool.Text(out)
}
