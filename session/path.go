package session

import "path/filepath"

// DBFileName is the name of the session database inside the harness9 home.
const DBFileName = "harness9.db"

// MinPrefixLen is the shortest id prefix Store.Get resolves; a shorter
// string only matches a session whose full id it is.
const MinPrefixLen = 4

// DefaultPath returns the session database's path inside a harness9 data
// directory, which the program chooses.
func DefaultPath(home string) string {
	return filepath.Join(home, DBFileName)
}
