// Package pathfold compares paths the way a case-insensitive file system
// does. macOS and Windows usually have one, and a Linux machine can mount
// one (a USB stick, an SMB share, ext4 with casefold): there ".SSH/id_rsa"
// opens ~/.ssh/id_rsa, and so may ".ſsh" (U+017F folds to s). A check that
// keeps a location out of reach, or protects one, must therefore match every
// spelling the file system could take for it. On a case-sensitive system
// this refuses a little more than needed, never less.
package pathfold

import (
	"path/filepath"
	"strings"
)

// Within reports whether p is dir or lies beneath it, comparing each
// component under Unicode case folding. Both must be clean and absolute.
func Within(dir, p string) bool {
	if dir == string(filepath.Separator) {
		return strings.HasPrefix(p, dir)
	}
	dc := strings.Split(dir, string(filepath.Separator))
	pc := strings.Split(p, string(filepath.Separator))
	if len(pc) < len(dc) {
		return false
	}
	for i, c := range dc {
		if !strings.EqualFold(c, pc[i]) {
			return false
		}
	}
	return true
}

// Same reports whether a and b name the same location on a case-insensitive
// file system (both clean and absolute).
func Same(a, b string) bool {
	return strings.Count(a, string(filepath.Separator)) == strings.Count(b, string(filepath.Separator)) && Within(a, b)
}
