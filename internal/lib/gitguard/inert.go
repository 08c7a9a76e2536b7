package gitguard

import (
	"bytes"
	"regexp"
	"strings"
)

// inertKeys are the configuration keys that make git run nothing and read
// nothing else: what git init, git clone, git remote add, git submodule add
// and git config user.* write. A configuration holding only these may be
// changed by the model's commands; anything else (core.fsmonitor,
// core.hooksPath, include.path, aliases, filters, pagers, editors, ...) is
// restored. The list is an allowlist on purpose: git has too many keys that
// name a program to list those instead.
var inertKeys = map[string][]string{
	"core": {"repositoryformatversion", "filemode", "bare", "logallrefupdates", "ignorecase",
		"precomposeunicode", "symlinks", "worktree", "autocrlf", "eol"},
	"extensions":  {"objectformat"},
	"remote.*":    {"url", "fetch", "pushurl"},
	"branch.*":    {"remote", "merge", "rebase"},
	"submodule.*": {"url", "active"},
	"user":        {"name", "email"},
	"init":        {"defaultbranch"},
	"pull":        {"rebase", "ff"},
	"push":        {"default", "autosetupremote"},
}

var (
	// A header with nothing git could read in another way: no escapes, no
	// old-style "[section.sub]", nothing after the bracket.
	inertHeader = regexp.MustCompile(`^\[([A-Za-z][A-Za-z0-9-]*)(?: "([^"\\]*)")?\]$`)
	// A key with a plain value: no quotes, escapes or comments.
	inertKey = regexp.MustCompile(`^[ \t]*([A-Za-z][A-Za-z0-9-]*)[ \t]*(?:=[ \t]*([^"\\#;]*))?$`)
)

// Inert reports whether a git configuration file can make git run nothing:
// every line is blank, a comment, a plain section header or a plain
// "key = value" whose key is on the inertKeys allowlist. The syntax
// accepted is a strict subset of git's, so the file cannot mean to git
// something other than what it means here; anything unusual (quotes,
// escapes, continuation lines, a carriage return, a byte-order mark, an
// include) makes the file not inert.
func Inert(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 || bytes.IndexByte(b, '\r') >= 0 {
		return false
	}
	var keys []string
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		switch {
		case trimmed == "", trimmed[0] == '#', trimmed[0] == ';':
			continue
		case trimmed[0] == '[':
			m := inertHeader.FindStringSubmatch(strings.TrimRight(trimmed, " \t"))
			if m == nil {
				return false
			}
			section := strings.ToLower(m[1])
			if strings.Contains(trimmed, `"`) {
				section += ".*"
			}
			var ok bool
			if keys, ok = inertKeys[section]; !ok {
				return false
			}
		default:
			m := inertKey.FindStringSubmatch(line)
			if m == nil || keys == nil || !contains(keys, strings.ToLower(m[1])) {
				return false
			}
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
