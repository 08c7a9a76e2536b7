package checkpoint

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/harness9/harness9/internal/lib/ignore"
	"github.com/harness9/harness9/tool"
)

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
// stat and content (from the cache), and the ignore rules it was walked
// with.
type snapshot struct {
	files   map[string]cached
	ignores ignoreSet
	at      time.Time // when the walk began
}

// clockSlack is how far a new file's modification time may lie before the
// snapshot for the file still to count as written after it: file times
// come from a coarser clock than time.Now, and FAT rounds them to 2s.
const clockSlack = 3 * time.Second

// madeSince reports whether a file not in the snapshot, with stat st
// after a call, may have been written by the call. A file whose time
// predates the snapshot was moved or copied in with its time kept (mv out
// of an ignored directory, cp -p, tar x): undo must not delete what may be
// the only copy of the user's file.
func (s *snapshot) madeSince(st stat) bool {
	return !st.mtime.Before(s.at.Add(-clockSlack))
}

// ignoreSet holds the .gitignore rules in force in each directory a walk
// entered, by root-relative path ("." for the root).
type ignoreSet map[string]*ignore.Rules

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
	r.mu.Lock()
	warming := r.warming
	r.mu.Unlock()
	if warming != nil {
		<-warming
	}
	return r.fill(context.Background())
}

// fill is snapshot's work: it stops reading contents when ctx ends (the
// files not read yet are left out of the cache, and the snapshot is only
// good for Warm).
func (r *Recorder) fill(ctx context.Context) (*snapshot, error) {
	at := time.Now()
	files, ignores, err := r.walk(nil)
	if err != nil {
		return nil, err
	}
	// The cache map is replaced, never changed in place, so it is read
	// without the lock: reading contents can take a while (Warm), and
	// edits recorded meanwhile must not wait for it.
	r.mu.Lock()
	old := r.cache
	r.mu.Unlock()
	next := make(map[string]cached, len(files))
	var budget int64
	for p, st := range files {
		if c, ok := old[p]; ok && c.stat == st {
			next[p] = c
			budget += int64(len(c.content))
		}
	}
	for p, st := range files {
		if _, ok := next[p]; ok {
			continue
		}
		if ctx.Err() != nil {
			break
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
	r.mu.Lock()
	r.cache = next
	r.mu.Unlock()
	return &snapshot{files: next, ignores: ignores, at: at}, nil
}

// walk stats every regular file of the tree that git would not ignore,
// skipping version-control directories and the workspace's deny list. It
// fails when the tree holds more than the file limit.
//
// With before (the rules of the walk before a call), a directory that walk
// entered keeps the rules it had then: a call that rewrites or removes a
// .gitignore must not make the files it hid look like files the call
// created, or undo would delete them. Only directories new since then read
// their own .gitignore.
func (r *Recorder) walk(before ignoreSet) (map[string]stat, ignoreSet, error) {
	root := r.ws.Root()
	files := map[string]stat{}
	ignores := ignoreSet{".": nil}
	rulesOf := func(dir string, parent *ignore.Rules, parts []string) *ignore.Rules {
		if rules, ok := before[dir]; ok {
			return rules
		}
		return parent.With(readIgnore(r.ws, dir), parts)
	}
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
				ignores["."] = rulesOf(".", rules, nil)
				return nil
			}
			if ignore.SkippedDirs[d.Name()] || rules.Ignored(parts, true) || r.ws.Denied(abs) {
				return filepath.SkipDir
			}
			ignores[rel] = rulesOf(rel, rules, parts)
			return nil
		}
		if !d.Type().IsRegular() || rules.Ignored(parts, false) {
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
		return nil, nil, err
	}
	return files, ignores, nil
}

// readIgnore reads dir's .gitignore through the workspace, so a planted
// pipe or link cannot hang or leak; nil when there is none.
func readIgnore(ws *tool.Workspace, dir string) []byte {
	data, _, err := ws.ReadFile(filepath.Join(dir, ".gitignore"), ignore.MaxFile)
	if err != nil {
		return nil
	}
	return data
}
