// Package ignore holds the .gitignore rules in effect while walking a
// workspace, shared by the file tools' walks and the checkpoint recorder so
// both skip exactly the same files.
package ignore

import (
	"bufio"
	"bytes"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// MaxFile caps how much of one ignore file is read.
const MaxFile = 1 << 20

// SkippedDirs are version-control directories no walk enters.
var SkippedDirs = map[string]bool{".git": true, ".hg": true, ".svn": true}

// Rules is the stack of ignore patterns in effect for one directory.
// Patterns carry their directory (domain) relative to the walk's root, so
// one list serves the whole subtree; a directory without an ignore file
// shares its parent's Rules. A nil *Rules ignores nothing.
type Rules struct {
	patterns []gitignore.Pattern
}

// With returns r extended by data, the content of an ignore file whose
// directory relative to the root is domain (nil for the root). r itself is
// not changed; with no patterns in data it is returned as it is.
func (r *Rules) With(data []byte, domain []string) *Rules {
	if len(data) == 0 {
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
	out := &Rules{}
	if r != nil {
		out.patterns = slices.Clip(r.patterns)
	}
	out.patterns = append(out.patterns, added...)
	return out
}

// Ignored reports whether the entry at parts (relative to the root) is
// excluded. Later patterns win, as in git.
func (r *Rules) Ignored(parts []string, isDir bool) bool {
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
