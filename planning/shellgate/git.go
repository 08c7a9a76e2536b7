package shellgate

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
	"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs",
	"--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--bare",
	"--no-replace-objects", "--version", "--exec-path", "--html-path", "--man-path", "--info-path",
)

const gitReadOnlyHint = "read-only git subcommands: status, log, diff, show, branch (listing), tag (listing), " +
	"rev-parse, ls-files, ls-tree, blame, grep, cat-file, describe, config --get/--list, stash list/show"

// gitSubcommand skips git's global options and returns the index of the
// subcommand (len(args) when there is none), or why an option is refused.
func gitSubcommand(args []arg) (int, string) {
	i := 0
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
			return 0, "git -c can set options that run commands (core.pager, alias.*, core.fsmonitor); run git without -c"
		case strings.HasPrefix(a, "-"):
			return 0, fmt.Sprintf("the git option %s is not allowed in Plan Mode", a)
		default:
			return i, ""
		}
	}
	return len(args), ""
}

func checkGit(args []arg) string {
	if r := literalOptions("git", args); r != "" {
		return r
	}
	i, reason := gitSubcommand(args)
	if reason != "" || i >= len(args) {
		return reason
	}
	sub, rest := args[i].value, args[i+1:]
	if r := gitRunsPrograms(sub, rest); r != "" {
		return r
	}
	if readOnlyGit[sub] {
		return ""
	}
	var ok bool
	switch sub {
	case "branch":
		ok = gitListing(rest, "arvli", false, setOf("--list", "--all", "--remotes", "--verbose", "--show-current",
			"--no-color", "--color", "--column", "--no-column", "--ignore-case", "--no-abbrev", "--omit-empty"))
	case "tag":
		ok = gitListing(rest, "lin0123456789", true, setOf("--list", "--no-color", "--color", "--column", "--no-column",
			"--ignore-case", "--omit-empty"))
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
		ok = true
		for _, a := range rest {
			if a.value == "expire" || a.value == "delete" || a.value == "drop" || a.value == "write" {
				ok = false
			}
		}
	}
	if ok {
		return ""
	}
	return fmt.Sprintf("git %s can change the repository or the working tree, so it is not allowed in Plan Mode (%s)", sub, gitReadOnlyHint)
}

// gitRunsPrograms refuses the options of reading subcommands that write a
// file or run a program: --output, git grep -O (in any cluster, -iO'cmd'),
// external diff and textconv drivers, and signature verification (gpg runs,
// and creates ~/.gnupg) through --show-signature or %G in a format.
func gitRunsPrograms(sub string, args []arg) string {
	for _, a := range args {
		v := a.value
		if v == "--" {
			break
		}
		switch {
		case longOpt(v, "--output"):
			return "git " + sub + " --output writes a file; let git print to stdout"
		case sub == "grep" && (longOpt(v, "--open-files-in-pager") || (isCluster(v) && strings.Contains(v, "O"))):
			return "git grep -O opens files in a program; use git grep without it"
		case longOpt(v, "--ext-diff", "--textconv", "--filters"):
			return "git " + v + " runs an external program; leave it out"
		case longOpt(v, "--show-signature") || strings.Contains(v, "%G") || strings.Contains(v, "%(signature"):
			return "verifying signatures (--show-signature, %G in a format) runs gpg, which writes to the home directory; leave it out"
		case sub == "tag" && (v == "--verify" || (isCluster(v) && strings.Contains(v, "v"))):
			return "git tag -v verifies a signature with gpg; use git show instead"
		}
	}
	return ""
}

// gitListing accepts a branch or tag invocation that only lists: known
// listing flags (long ones, or clusters of the short letters), flags taking
// a value (--sort=X, --format X, --contains X), and pattern operands only
// when an option that implies listing is given: --list, --contains,
// --merged, --points-at (and tag's -n). Without one, an operand names a
// branch or tag to create, whatever --sort or --format say.
func gitListing(args []arg, letters string, tag bool, flags map[string]bool) bool {
	listing, operands := false, false
	for i := 0; i < len(args); i++ {
		v := args[i].value
		name, _, hasValue := strings.Cut(v, "=")
		switch {
		case v == "--":
			operands = operands || i+1 < len(args)
			i = len(args)
		case v == "--list" || v == "-l":
			listing = true
		case flags[name] && (!hasValue || name == "--color" || name == "--column"):
		case strings.HasPrefix(v, "--abbrev="):
		case name == "--sort" || name == "--format":
			if !hasValue {
				i++
			}
		case name == "--contains" || name == "--no-contains" || name == "--merged" || name == "--no-merged" || name == "--points-at":
			// An optional commit follows as the next word when it is not
			// an option; either way these list.
			listing = true
		case tag && strings.HasPrefix(v, "-n") && (len(v) == 2 || isDigits(v[2:])):
			listing = true // tag -n5: annotation lines, implies --list
		case isCluster(v):
			for _, c := range v[1:] {
				if !strings.ContainsRune(letters, c) {
					return false
				}
				if c == 'l' || c == 'n' && tag {
					listing = true
				}
			}
		case strings.HasPrefix(v, "-"):
			return false
		default:
			operands = true
		}
	}
	return listing || !operands
}

// gitConfigRead accepts only the reading forms of git config: the get and
// list subcommands (git 2.46), or one of --get, --get-all, --get-regexp,
// --get-urlmatch, --list before any operand — legacy git config stops at
// the first operand, so `git config KEY VALUE --get` sets KEY — with at
// most the operands that action takes.
func gitConfigRead(args []arg) bool {
	modifiers := setOf("--global", "--system", "--local", "--worktree", "--show-origin", "--show-scope",
		"--null", "-z", "--name-only", "--bool", "--int", "--bool-or-int", "--path", "--expiry-date",
		"--includes", "--no-includes", "--fixed-value")
	valued := setOf("--type", "--default", "--file", "-f", "--blob")
	if len(args) > 0 && (args[0].value == "get" || args[0].value == "list") {
		max := 1
		if args[0].value == "list" {
			max = 0
		}
		n := 0
		for i := 1; i < len(args); i++ {
			v := args[i].value
			name, _, hasValue := strings.Cut(v, "=")
			switch {
			case modifiers[v] || v == "--all" || v == "--regexp":
			case valued[name] || name == "--value" || name == "--url":
				if !hasValue {
					i++
				}
			case strings.HasPrefix(v, "-"):
				return false
			default:
				n++
			}
		}
		return n <= max
	}
	action, operands := "", 0
	for i := 0; i < len(args); i++ {
		v := args[i].value
		name, _, hasValue := strings.Cut(v, "=")
		switch {
		case operands > 0 || !strings.HasPrefix(v, "-") || v == "-":
			operands++
		case v == "--":
			operands += len(args) - i - 1
			i = len(args)
		case v == "--get" || v == "--get-all" || v == "--get-regexp" || v == "--get-urlmatch" || v == "--list" || v == "-l":
			if action != "" && action != v {
				return false
			}
			action = v
		case modifiers[v]:
		case valued[name]:
			if !hasValue {
				i++
			}
		default:
			return false
		}
	}
	switch action {
	case "--list", "-l":
		return operands == 0
	case "--get", "--get-all", "--get-regexp":
		return operands >= 1 && operands <= 2
	case "--get-urlmatch":
		return operands == 2
	}
	return false
}
