package shellgate

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Globs are checked on every name they match now, with a matcher that
// matches at least what bash's would: Go's path.Match differs from bash (it
// reads [!x] as a class of ! and x, bash as "not x"; its * matches dot
// files), so patterns are translated, and where a translation is unsure the
// rest of the component becomes *. A glob that matches nothing reaches the
// command as it is written, which is checked too.

// glob checks a word with unquoted glob characters.
func (s *pathChecker) glob(n syntax.Node, w *syntax.Word, value string) error {
	pattern, unquoted := wordPattern(w)
	if strings.Contains(unquoted, "{") && (strings.Contains(unquoted, ",") || strings.Contains(unquoted, "..")) {
		return s.refusePath(n, value, "brace expansion in a path cannot be checked; list the paths one by one")
	}
	return s.globValue(n, value, pattern)
}

// globValue checks a glob pattern (bash syntax: a backslash quotes the next
// character) and the literal word a command gets when it matches nothing.
func (s *pathChecker) globValue(n syntax.Node, literal, pattern string) error {
	if err := s.checkPath(n, literal); err != nil {
		return err
	}
	comps := globComponents(pattern)
	for _, b := range s.bases {
		start := b
		if strings.HasPrefix(pattern, "/") {
			start = ""
		}
		matches, err := expandGlob(start, comps)
		if err != nil {
			return s.refusePath(n, literal, err.Error())
		}
		for _, m := range matches {
			if _, err := s.ws.Resolve(m); err != nil {
				return s.refusePath(n, literal, s.matchRefused(m, err))
			}
		}
	}
	return nil
}

// matchRefused says why a glob's match m is refused without naming m when
// it lies outside the workspace: the refusal must not list a directory
// the command could not.
func (s *pathChecker) matchRefused(m string, err error) string {
	if rel := s.ws.Rel(m); !filepath.IsAbs(rel) {
		return fmt.Sprintf("it matches %s, and %v", rel, err)
	}
	return "it matches files outside the workspace, which Plan Mode's bash may not read or list"
}

// wordPattern returns a word as a bash pattern in which only the unquoted
// glob characters are special, and the unquoted text.
func wordPattern(w *syntax.Word) (pattern, unquoted string) {
	var b, u strings.Builder
	quote := func(s string) {
		for _, r := range s {
			if strings.ContainsRune(`*?[]\`, r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
	}
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := strings.ReplaceAll(p.Value, "\\\n", "")
			b.WriteString(v)
			u.WriteString(v)
		case *syntax.SglQuoted:
			quote(p.Value)
		case *syntax.DblQuoted:
			for _, dp := range p.Parts {
				if lit, ok := dp.(*syntax.Lit); ok {
					quote(unescapeDouble(lit.Value))
				}
			}
		}
	}
	return b.String(), u.String()
}

// globComponent is one /-separated part of a pattern: a literal name, or a
// path.Match pattern.
type globComponent struct {
	name    string // the literal name, when !wild
	pattern string
	wild    bool
	dotted  bool // starts with a literal dot: may match . and .. (bash before 5.2)
}

func globComponents(pattern string) []globComponent {
	var comps []globComponent
	for _, c := range strings.Split(pattern, "/") {
		if c == "" {
			continue
		}
		comps = append(comps, translateComponent(c))
	}
	return comps
}

// translateComponent turns one bash pattern component into a path.Match
// pattern matching at least the same names.
func translateComponent(c string) globComponent {
	var b, name strings.Builder
	g := globComponent{dotted: strings.HasPrefix(c, ".") || strings.HasPrefix(c, `\.`)}
	for i := 0; i < len(c); i++ {
		switch ch := c[i]; ch {
		case '\\':
			if i+1 < len(c) {
				i++
			}
			b.WriteByte('\\')
			b.WriteByte(c[i])
			name.WriteByte(c[i])
		case '*', '?':
			g.wild = true
			b.WriteByte(ch)
		case '[':
			class, next, ok := translateBracket(c, i+1)
			if !ok { // no closing ]: bash matches a literal [
				b.WriteString(`\[`)
				name.WriteByte('[')
				continue
			}
			g.wild = true
			if class == "" { // a class the translation is unsure of
				b.WriteByte('*')
				g.pattern = b.String()
				return g
			}
			b.WriteString(class)
			i = next - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(ch)
			name.WriteByte(ch)
		}
	}
	g.pattern, g.name = b.String(), name.String()
	return g
}

// translateBracket reads the bracket expression after the [ at c[start-1]
// and returns it as a path.Match class and the index after its ]. ok is
// false when there is no closing ]; class is "" for classes Go does not
// have ([:alpha:], [.x.], [=x=]).
func translateBracket(c string, start int) (class string, next int, ok bool) {
	var b strings.Builder
	b.WriteByte('[')
	i := start
	if i < len(c) && (c[i] == '!' || c[i] == '^') {
		b.WriteByte('^')
		i++
	}
	first := true
	for ; i < len(c); i++ {
		ch := c[i]
		switch {
		case ch == ']' && !first:
			b.WriteByte(']')
			return b.String(), i + 1, true
		case ch == '[' && i+1 < len(c) && strings.IndexByte(":.=", c[i+1]) >= 0:
			if end := strings.Index(c[i+2:], string(c[i+1])+"]"); end >= 0 && strings.Contains(c[i+2+end+2:], "]") {
				return "", len(c), true
			}
			b.WriteString(`\[`)
		case ch == '\\' && i+1 < len(c):
			i++
			b.WriteByte('\\')
			b.WriteByte(c[i])
		case ch == '-' && !first && i+1 < len(c) && c[i+1] != ']':
			b.WriteByte('-')
		default:
			b.WriteByte('\\')
			b.WriteByte(ch)
		}
		first = false
	}
	return "", 0, false
}

// expandGlob lists the existing paths the components match below start
// ("" for /), joined without cleaning, as the kernel would walk them.
func expandGlob(start string, comps []globComponent) ([]string, error) {
	paths := []string{start}
	for _, c := range comps {
		var next []string
		for _, p := range paths {
			if !c.wild { // bash's glob matches only names that exist
				if _, err := os.Lstat(p + "/" + c.name); err == nil {
					next = append(next, p+"/"+c.name)
				}
				continue
			}
			dir := p
			if dir == "" {
				dir = "/"
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				continue
			}
			names := make([]string, 0, len(entries)+2)
			if c.dotted {
				names = append(names, ".", "..")
			}
			for _, e := range entries {
				names = append(names, e.Name())
			}
			for _, name := range names {
				if ok, err := path.Match(c.pattern, name); ok || err != nil {
					next = append(next, p+"/"+name)
				}
			}
			if len(next) > maxGlobMatches {
				return nil, fmt.Errorf("the glob matches more than %d files, too many to check; narrow it", maxGlobMatches)
			}
		}
		paths = next
	}
	return paths, nil
}
