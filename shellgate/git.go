package planning

import (
	"fmt"
	"strings"
)

// readOnlyGit are git subcommands that only read the repository (apart from
// git's own index refresh, which changes no content).
var readOnlyGit = setOf(
	"status", "log", "diff", "show", "rev-parse", "ls-files", "ls-tree", "blame",
	"annotate", "grep", "cat-file", "shortlog", "describe", "rev-list", "show-ref",
	"merge-base", "name-rev", "whatchanged", "count-objects", "for-each-ref",
	"diff-tree", "diff-files", "diff-index", "var", "check-ignore", "check-attr",
	"version", "show-branch", "cherry",
)

// gitGlobalFlags are options before the subcommand that change nothing.
var gitGlobalFlags = setOf(
	"--no-pager", "-P", "-p", "--paginate", "--no-optional-locks", "--literal-pathspecs",
	"--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--bare",
	"--no-replace-objects", "--version", "--exec-path", "--html-path", "--man-path", "--info-path",
)

const gitReadOnlyHint = "read-only git subcommands: status, log, diff, show, branch (listing), tag (listing), " +
	"rev-parse, ls-files, ls-tree, blame, grep, cat-file, describe, config --get/--list, stash list/show"

func checkGit(args []arg) string {
	if r := literalOptions("git", args); r != "" {
		return r
	}
	i := 0
globals:
	for i < len(args) {
		a := args[i].value
		switch {
		case a == "-C" || a == "--git-dir" || a == "--work-tree" || a == "--namespace":
			i += 2
		case strings.HasPrefix(a, "--git-dir=") || strings.HasPrefix(a, "--work-tree=") || strings.HasPrefix(a, "--namespace="):
			i++
		case gitGlobalFlags[a]:
			i++
		case strings.HasPrefix(a, "-c") || strings.HasPrefix(a, "--config-env"):
			return "git -c can set options that run commands (core.pager, alias.*, core.fsmonitor); run git without -c"
		case strings.HasPrefix(a, "-"):
			return fmt.Sprintf("the git option %s is not allowed in Plan Mode", a)
		default:
			break globals
		}
	}
	if i >= len(args) {
		return ""
	}
	sub, rest := args[i].value, args[i+1:]
	for _, a := range rest {
		v := a.value
		if v == "--" {
			break
		}
		if longOpt(v, "--output") {
			return "git " + sub + " --output writes a file; let git print to stdout"
		}
		if sub == "grep" && (strings.HasPrefix(v, "-O") || longOpt(v, "--open-files-in-pager")) {
			return "git grep -O opens files in a program; use git grep without it"
		}
	}
	if readOnlyGit[sub] {
		return ""
	}
	var ok bool
	switch sub {
	case "branch":
		ok = gitListing(rest, setOf("--list", "-l", "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose",
			"--show-current", "--no-color", "--color", "--column", "--no-column", "-i", "--ignore-case", "--no-abbrev"),
			setOf("--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format"),
			setOf("--list", "-l"))
	case "tag":
		ok = gitListing(rest, setOf("--list", "-l", "--no-color", "--color", "--column", "--no-column", "-i", "--ignore-case"),
			setOf("--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format"),
			setOf("--list", "-l"))
	case "config":
		ok = gitConfigRead(rest)
	case "stash":
		ok = len(rest) > 0 && (rest[0].value == "list" || rest[0].value == "show")
	case "remote":
		ok = len(rest) == 0 || (len(rest) == 1 && (rest[0].value == "-v" || rest[0].value == "--verbose")) ||
			rest[0].value == "get-url"
	case "worktree":
		ok = len(rest) > 0 && rest[0].value == "list"
	case "reflog":
		ok = len(rest) == 0 || rest[0].value == "show" || strings.HasPrefix(rest[0].value, "-")
	}
	if ok {
		return ""
	}
	return fmt.Sprintf("git %s can change the repository or the working tree, so it is not allowed in Plan Mode (%s)", sub, gitReadOnlyHint)
}

// gitListing accepts a branch/tag invocation that only lists: known listing
// flags, flags taking a value (--contains X, --sort=X), and pattern operands
// only when one of listFlags asks for a listing (otherwise an operand names a
// branch or tag to create).
func gitListing(args []arg, flags, valued, listFlags map[string]bool) bool {
	listing, operands := false, false
	for i := 0; i < len(args); i++ {
		v := args[i].value
		name, _, hasValue := strings.Cut(v, "=")
		switch {
		case listFlags[v]:
			listing = true
		case flags[v] || strings.HasPrefix(v, "--color=") || strings.HasPrefix(v, "--column=") || strings.HasPrefix(v, "--abbrev="):
		case valued[name]:
			if !hasValue && (name == "--sort" || name == "--format") {
				i++
			}
			// --contains/--merged/--points-at take an optional commit operand;
			// they all imply listing.
			listing = true
		case strings.HasPrefix(v, "-n") && len(v) > 2 && isDigits(v[2:]):
			listing = true // tag -n5: show annotation lines
		case strings.HasPrefix(v, "-"):
			return false
		default:
			operands = true
		}
	}
	return listing || !operands
}

// gitConfigRead accepts only reading forms of git config.
func gitConfigRead(args []arg) bool {
	if len(args) > 0 && (args[0].value == "get" || args[0].value == "list") {
		return true
	}
	modifiers := setOf("--global", "--system", "--local", "--worktree", "--show-origin", "--show-scope",
		"--null", "-z", "--name-only", "--bool", "--int", "--path", "--includes", "--no-includes")
	reading := false
	for _, a := range args {
		v := a.value
		switch {
		case v == "--get" || v == "--get-all" || v == "--get-regexp" || v == "--get-urlmatch" || v == "--list" || v == "-l":
			reading = true
		case modifiers[v] || strings.HasPrefix(v, "--type=") || strings.HasPrefix(v, "--default=") || strings.HasPrefix(v, "--file="):
		case strings.HasPrefix(v, "-"):
			return false
		}
	}
	return reading
}
