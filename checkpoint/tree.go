package checkpoint

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/harness9/harness9/tool"
)

// skippedDirs are never tracked: version control's own data.
var skippedDirs = map[string]bool{".git": true, ".hg": true, ".svn": true}

// stat is what the tree comparison looks at.
type stat struct {
	size  int64
	mtime time.Time
	mode  fs.FileMode
}

// cached is a file's content as of a stat.
type cached struct {
	stat
	content  []byte
	tooLarge bool // not kept: over the file cap or the cache budget
}

// snapshot is the tracked tree before a shell call: every regular file's
// stat and content (from the cache).
type snapshot struct {
	files map[string]cached
}

// changed lists the paths whose presence or stat differ between the
// snapshot and after, sorted.
func (s *snapshot) changed(after map[string]stat) []string {
	var out []string
	for p, b := range s.files {
		if a, ok := after[p]; !ok || a != b.stat {
			out = append(out, p)
		}
	}
	for p := range after {
		if _, ok := s.files[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// prior is rel's state in the snapshot.
func (s *snapshot) prior(rel string) prior {
	c, ok := s.files[rel]
	if !ok {
		return prior{}
	}
	return prior{existed: true, content: c.content, mode: c.mode, tooLarge: c.tooLarge}
}

// snapshot stats the tracked tree and fills the content cache for every
// file whose stat changed since it was cached, before a shell call runs.
func (r *Recorder) snapshot() (*snapshot, error) {
	files, err := r.walk()
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	next := make(map[string]cached, len(files))
	var budget int64
	for p, st := range files {
		if c, ok := r.cache[p]; ok && c.stat == st {
			next[p] = c
			budget += int64(len(c.content))
		}
	}
	for p, st := range files {
		if _, ok := next[p]; ok {
			continue
		}
		c := cached{stat: st, tooLarge: true}
		if st.size <= r.maxFile && budget+st.size <= r.maxBytes {
			data, truncated, err := r.ws.ReadFile(p, r.maxFile)
			if err == nil && !truncated {
				c.content, c.tooLarge = data, false
				budget += int64(len(data))
			}
		}
		next[p] = c
	}
	r.cache = next
	return &snapshot{files: next}, nil
}

// walk stats every regular file of the tree that git would not ignore,
// skipping version-control directories and the workspace's deny list. It
// fails when the tree holds more than the file limit.
func (r *Recorder) walk() (map[string]stat, error) {
	root := r.ws.Root()
	files := map[string]stat{}
	ignores := map[string]*ignoreRules{".": nil}
	err := filepath.WalkDir(root, func(abs string, d fs.DirEntry, err error) error {
		if err != nil {
			if abs == root {
				return err
			}
			return nil // unreadable entries are not tracked
		}
		rel, _ := filepath.Rel(root, abs)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		rules := ignores[filepath.Dir(rel)]
		if d.IsDir() {
			if rel == "." {
				ignores["."] = rules.read(r.ws, ".", nil)
				return nil
			}
			if skippedDirs[d.Name()] || rules.ignored(parts, true) || r.ws.Denied(abs) {
				return filepath.SkipDir
			}
			ignores[rel] = rules.read(r.ws, rel, parts)
			return nil
		}
		if !d.Type().IsRegular() || rules.ignored(parts, false) {
			return nil
		}
		if len(files) >= r.maxFiles {
			return fmt.Errorf("the workdir holds more than %d files that git would not ignore; "+
				"undo covers only write_file and edit_file here (add build outputs to .gitignore to shrink it)", r.maxFiles)
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		files[filepath.ToSlash(rel)] = stat{size: fi.Size(), mtime: fi.ModTime(), mode: fi.Mode()}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}

// ignoreRules are the .gitignore patterns in effect for a directory.
type ignoreRules struct{ patterns []gitignore.Pattern }

// maxIgnoreFile caps how much of one .gitignore is read.
const maxIgnoreFile = 1 << 20

// read extends r with the .gitignore of dir (relative to the root), read
// through the workspace so a planted pipe or link cannot hang or leak;
// domain is dir as path parts (nil for the root).
func (r *ignoreRules) read(ws *tool.Workspace, dir string, domain []string) *ignoreRules {
	data, _, err := ws.ReadFile(filepath.Join(dir, ".gitignore"), maxIgnoreFile)
	if err != nil {
		return r
	}
	var added []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		added = append(added, gitignore.ParsePattern(line, domain))
	}
	if len(added) == 0 {
		return r
	}
	out := &ignoreRules{}
	if r != nil {
		out.patterns = append(out.patterns, r.patterns...)
	}
	out.patterns = append(out.patterns, added...)
	return out
}

// ignored reports whether the entry at parts is excluded; later patterns win.
func (r *ignoreRules) ignored(parts []string, isDir bool) bool {
	if r == nil {
		return false
	}
	for i := len(r.patterns) - 1; i >= 0; i-- {
		if m := r.patterns[i].Match(parts, isDir); m != gitignore.NoMatch {
			return m == gitignore.Exclude
		}
	}
	return false
}
