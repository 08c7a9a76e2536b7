package permission

import (
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// Suggest returns the narrowest rules that together allow c, for a message
// that says how to permit a refused call and for "always allow" answers:
// one "bash(cmd sub:*)" per distinct command of a shell line, the path of a
// file call, else the tool's name. It returns nil for a shell line no
// command rule can cover (substitutions, redirections to files, ...): only
// the tool's bare name would, and that allows every command.
func Suggest(c Call, workdir string) []string {
	switch {
	case c.Command != "":
		return suggestCommand(c.Tool, c.Command)
	case c.Path != "":
		return []string{c.Tool + "(" + suggestPath(c.Path, workdir) + ")"}
	case c.URL != "":
		if d, ok := domainOf(c.URL); ok {
			return []string{c.Tool + "(domain:" + d + ")"}
		}
	}
	return []string{c.Tool}
}

func suggestCommand(tool, line string) []string {
	cmds, ok := simpleCommands(line)
	if !ok || len(cmds) == 0 {
		return nil
	}
	var rules []string
	for _, words := range cmds {
		prefix := []string{words[0]}
		// The second word joins the prefix when it reads like a
		// subcommand (git diff, go test, npm run), not an option or a
		// path.
		if len(words) > 1 && isSubcommand(words[1]) {
			prefix = append(prefix, words[1])
		}
		spec := strings.Join(prefix, " ") + ":*"
		if !matchCommand(spec, strings.Join(quoteAll(words), " ")) {
			// An option naming an output file: only the exact command
			// is narrow enough.
			spec = strings.Join(words, " ")
		}
		if strings.ContainsAny(spec, "()") || strings.ContainsAny(strings.Join(words, ""), " \t\n") {
			return nil
		}
		r := tool + "(" + spec + ")"
		if !slices.Contains(rules, r) {
			rules = append(rules, r)
		}
	}
	return rules
}

func isSubcommand(w string) bool {
	if w == "" || strings.HasPrefix(w, "-") || strings.ContainsAny(w, "/.=:") {
		return false
	}
	for _, c := range w {
		if !(c == '-' || c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// quoteAll single-quotes words for re-parsing.
func quoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return out
}

func suggestPath(path, workdir string) string {
	if filepath.IsAbs(path) {
		if rel, err := filepath.Rel(workdir, path); err == nil && !strings.HasPrefix(rel, "..") {
			path = rel
		}
	}
	path = filepath.ToSlash(filepath.Clean(path))
	var b strings.Builder
	for _, c := range path {
		if strings.ContainsRune(`*?[]{}\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func domainOf(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return "", false
	}
	return strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")), true
}
