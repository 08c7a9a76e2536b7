package slashcmd

import (
	"strings"
)

// Expand fills the template with args: $ARGUMENTS becomes all of them as
// typed, $1 … $9 the words of a shell-like split (single and double quotes
// group words, a backslash escapes the next character outside single
// quotes); a missing word is empty. A template that uses neither gets the
// arguments appended, so they are never lost.
func (c Command) Expand(args string) string {
	args = strings.TrimSpace(args)
	words := SplitArgs(args)
	var b strings.Builder
	used := false
	body := c.Body
	for i := 0; i < len(body); i++ {
		if body[i] != '$' {
			b.WriteByte(body[i])
			continue
		}
		rest := body[i+1:]
		switch {
		case strings.HasPrefix(rest, "ARGUMENTS"):
			b.WriteString(args)
			i += len("ARGUMENTS")
			used = true
		case len(rest) > 0 && rest[0] >= '1' && rest[0] <= '9':
			if n := int(rest[0] - '1'); n < len(words) {
				b.WriteString(words[n])
			}
			i++
			used = true
		default:
			b.WriteByte('$')
		}
	}
	if !used && args != "" {
		b.WriteString("\n\nARGUMENTS: " + args)
	}
	return b.String()
}

// SplitArgs splits s into words the way a shell would, without expanding
// anything: quotes group, a backslash escapes (not inside single quotes).
// An unclosed quote runs to the end of s.
func SplitArgs(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case r == '\\' && quote != '\'':
			escaped, inWord = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
