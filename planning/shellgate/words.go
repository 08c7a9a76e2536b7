package shellgate

import (
	"bytes"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word is the statically known value of a shell word.
type word struct {
	value string
	glob  bool // unquoted glob or brace-expansion characters: may expand to other words
	tilde bool // starts with an unquoted ~, which bash expands to a home directory
	// pattern is the word as a glob pattern (globs.go), set where needed.
	pattern string
}

// literal returns the value a word has after quote removal, when that value
// is known without running anything. Words containing expansions,
// substitutions or $'...' escapes are not static.
func literal(w *syntax.Word) (word, bool) {
	if w == nil {
		return word{}, false
	}
	var out word
	var b, unquoted strings.Builder
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "*?[") {
				out.glob = true
			}
			if i == 0 && strings.HasPrefix(p.Value, "~") {
				out.tilde = true
			}
			unquoted.WriteString(p.Value)
			b.WriteString(unescapeUnquoted(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				return word{}, false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return word{}, false
			}
			for _, dp := range p.Parts {
				lit, ok := dp.(*syntax.Lit)
				if !ok {
					return word{}, false
				}
				b.WriteString(unescapeDouble(lit.Value))
			}
		default:
			return word{}, false
		}
	}
	// Brace expansion ({-del"ete",} becomes -delete) happens before quote
	// removal, so a word with an unquoted { and , or .. may expand to other
	// words, like a glob.
	if u := unquoted.String(); strings.Contains(u, "{") && (strings.Contains(u, ",") || strings.Contains(u, "..")) {
		out.glob = true
	}
	out.value = b.String()
	return out, true
}

// unescapeUnquoted applies the shell's quote removal to an unquoted literal:
// a backslash escapes the next character, and backslash-newline vanishes.
func unescapeUnquoted(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble applies quote removal inside double quotes, where a
// backslash only escapes $, `, ", \ and newline.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// arg is one argument of a simple command as far as it is known statically.
type arg struct {
	w      *syntax.Word
	value  string
	static bool // value is exactly what the command receives...
	glob   bool // ...unless unquoted glob characters expand it to other (option-like) words
	tilde  bool
	// runtime marks a file name only known at run time, from a file list
	// (find -exec's {}, xargs -I's replacement).
	runtime bool
}

func (a arg) literal() bool { return a.static && !a.glob }

// callArgs returns a command's name and its arguments; ok is false when the
// name is not a literal word.
func callArgs(c *syntax.CallExpr) (name word, args []arg, ok bool) {
	if len(c.Args) == 0 {
		return word{}, nil, false
	}
	name, ok = literal(c.Args[0])
	args = make([]arg, 0, len(c.Args)-1)
	for _, w := range c.Args[1:] {
		lit, static := literal(w)
		args = append(args, arg{w: w, value: lit.value, static: static, glob: lit.glob, tilde: lit.tilde})
	}
	return name, args, ok
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

func isLowerIdent(s string) bool {
	return isIdent(s) && !strings.ContainsAny(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
}

// longOpt reports whether a names one of the long options, allowing the
// unique-prefix abbreviations GNU getopt accepts (--out=f is --output=f).
func longOpt(a string, names ...string) bool {
	name, _, _ := strings.Cut(a, "=")
	if len(name) < 3 || !strings.HasPrefix(name, "--") {
		return false
	}
	for _, n := range names {
		if strings.HasPrefix(n, name) {
			return true
		}
	}
	return false
}

// isCluster reports whether v is a cluster of short options (-abc).
func isCluster(v string) bool { return len(v) > 1 && v[0] == '-' && v[1] != '-' }

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// refuse builds a CommandError quoting the node's source text.
func refuse(n syntax.Node, reason string) error {
	return &CommandError{Command: printNode(n), Reason: reason}
}

func printNode(n syntax.Node) string {
	var buf bytes.Buffer
	if err := syntax.NewPrinter(syntax.SingleLine(true)).Print(&buf, n); err != nil {
		return fmt.Sprintf("%T", n)
	}
	s := strings.TrimSpace(buf.String())
	const maxShown = 200
	if len(s) > maxShown {
		s = s[:maxShown] + "..."
	}
	return s
}
