package skill

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
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
	}, tool.AsReadOnly(), tool.WithKind(tool.KindRead))
}

func render(s Skill) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Skill: %s\nFolder: %s\n\n%s\n", s.Name, s.Dir, s.Body)
	files, more := listFiles(s)
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

// listFiles returns up to maxListedFiles regular files below the skill's
// folder (relative, slash-separated, shallowest first, SKILL.md and hidden
// entries excluded) and how many more there were. Directories are listed
// through the skill's workspace; linked directories are not entered.
func listFiles(s Skill) (files []string, more int) {
	if s.ws == nil {
		return nil, 0
	}
	var all []string
	queue := []string{""}
	for len(queue) > 0 && len(all) < maxWalkedFiles {
		sub := queue[0]
		queue = queue[1:]
		d, fi, err := s.ws.Open(filepath.Join(s.rel, sub))
		if err != nil {
			continue // unreadable entries are simply not listed
		}
		var entries []fs.DirEntry
		if fi.IsDir() {
			entries, _ = d.ReadDir(-1)
		}
		_ = d.Close()
		slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
		for _, e := range entries {
			name := e.Name()
			rel := path.Join(filepath.ToSlash(sub), name)
			switch {
			case strings.HasPrefix(name, "."):
			case e.IsDir():
				queue = append(queue, filepath.FromSlash(rel))
			case e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0:
				if rel != FileName && len(all) < maxWalkedFiles {
					all = append(all, rel)
				}
			}
		}
	}
	slices.SortStableFunc(all, func(a, b string) int {
		return strings.Count(a, "/") - strings.Count(b, "/")
	})
	if len(all) > maxListedFiles {
		return all[:maxListedFiles], len(all) - maxListedFiles
	}
	return all, 0
}

// readSkillFile returns a file of the skill's folder, read through the
// skill's workspace. The path must lead inside the folder, symlinks
// included; pipes and devices are refused before they are opened.
func readSkillFile(s Skill, rel string) tool.Result {
	if filepath.IsAbs(rel) {
		return tool.Errorf("file %q must be relative to the skill's folder", rel)
	}
	if s.ws == nil {
		return tool.Errorf("skill %s: its folder was not found by discovery; no files can be read", s.Name)
	}
	folder, err := s.ws.Resolve(s.rel)
	if err != nil {
		return tool.Errorf("skill %s: folder not readable: %v", s.Name, err)
	}
	// Joined, not cleaned: ".." applies after the links, as when opened.
	target, err := s.ws.Resolve(s.rel + string(filepath.Separator) + filepath.FromSlash(rel))
	if err != nil {
		return tool.Errorf("file %q is outside the skill's folder", rel)
	}
	if r, err := filepath.Rel(folder, target); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return tool.Errorf("file %q is outside the skill's folder", rel)
	}
	data, truncated, err := s.ws.ReadFile(target, maxSkillRead)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tool.Errorf("skill %s has no file %q (use the paths use_skill listed)", s.Name, rel)
	case err != nil:
		return tool.Errorf("skill %s: %v", s.Name, err)
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return tool.Errorf("%q is a binary file", rel)
	}
	out := string(data)
	if truncated {
		out = strings.ToValidUTF8(out, "") + fmt.Sprintf("\n\n[truncated: only the first %d bytes are shown]", maxSkillRead)
	}
	return tool.Text(out)
}
