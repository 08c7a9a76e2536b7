// Package migration loads a store's versioned schema: plain SQL files named
// NNNN_description.sql, applied in order. Files are never edited once
// released; a schema change is a new file.
package migration

import (
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// Migration is one schema step.
type Migration struct {
	Version int
	Name    string // the file's base name
	SQL     string
}

// Load returns the migrations matching glob in fsys in version order and
// checks that the versions run 1, 2, 3 ... without gaps or duplicates.
func Load(fsys fs.FS, glob string) ([]Migration, error) {
	names, err := fs.Glob(fsys, glob)
	if err != nil {
		return nil, err
	}
	var ms []Migration
	for _, name := range names { // fs.Glob returns names sorted
		base := path.Base(name)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a version number and '_'", base)
		}
		if v != len(ms)+1 {
			return nil, fmt.Errorf("migration %s: version %d out of sequence (want %d)", base, v, len(ms)+1)
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, Migration{Version: v, Name: base, SQL: string(body)})
	}
	return ms, nil
}
