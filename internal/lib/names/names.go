// Package names checks the names of skills, slash commands and sub-agent
// definitions: 1 to 64 characters, starting with a letter or digit. A loop,
// not a regexp: a compiled `{0,63}` costs every process start a few hundred
// microseconds.
package names

import "strings"

// Valid reports whether name is 1-64 ASCII letters (lower case only unless
// upper), digits and the characters of punct, starting with a letter or
// digit.
func Valid(name string, upper bool, punct string) bool {
	if name == "" || len(name) > 64 || strings.IndexByte(punct, name[0]) >= 0 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || upper && 'A' <= c && c <= 'Z' || strings.IndexByte(punct, c) >= 0
		if !ok {
			return false
		}
	}
	return true
}
