package permission

import (
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// A command rule ("git diff:*" or "npm test") matches a shell line only
// when the line is nothing but simple commands joined by pipes, &&, || and
// ; and every one of them is covered by the rule. Whatever could run or
// write something the words do not show makes the rule not match:
// command or process substitution, parameter expansion, globs, a
// redirection to a file, variable assignments, functions, subshells,
// loops, comments, here-documents, text the parser and bash could read
// differently, or input that does not parse. Not matching is safe: the
// call then gets the next rule or the mode's default (usually: ask).
//
// A prefix rule trusts the options that follow the prefix, except those
// that by wide convention name an output file (-o…, --output…, --out=…):
// "git diff:*" does not cover "git diff --output=f".

// maxLine bounds the command text a rule is matched against.
const maxLine = 64 << 10

// matchCommand reports whether every simple command of line is covered by
// spec.
func matchCommand(spec, line string) bool {
	cmds, ok := simpleCommands(line)
	if !ok || len(cmds) == 0 {
		return false
	}
	for _, words := range cmds {
		if !coversCommand(spec, words) {
			return false
		}
	}
	return true
}

// coversCommand reports whether spec ("git diff:*" or "npm test") covers
// one simple command.
func coversCommand(spec string, words []string) bool {
	prefix, isPrefix := strings.CutSuffix(spec, ":*")
	want := strings.Fields(prefix)
	return len(want) > 0 && covers(want, isPrefix, words)
}

func covers(want []string, isPrefix bool, words []string) bool {
	if len(words) < len(want) || (!isPrefix && len(words) != len(want)) {
		return false
	}
	for i, w := range want {
		if words[i] != w {
			return false
		}
	}
	for _, w := range words[len(want):] {
		if namesOutput(w) {
			return false
		}
	}
	return true
}

// namesOutput reports an option that conventionally names a file to write
// (git diff --output, gcc -o, sort -o, curl -o, go build -o).
func namesOutput(w string) bool {
	return strings.HasPrefix(w, "-o") || strings.HasPrefix(w, "--output") || strings.HasPrefix(w, "--out=")
}

// simpleCommands parses line and returns the words of each simple command
// in it, or false when the line holds anything but plain simple commands
// (see the comment at the top of this file).
func simpleCommands(line string) ([][]string, bool) {
	if !plainText(line) {
		return nil, false
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).
		Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, false
	}
	var cmds [][]string
	for _, st := range f.Stmts {
		if !collect(st, &cmds) {
			return nil, false
		}
	}
	return cmds, true
}

// plainText refuses text the parser and bash could read differently:
// control characters (CR included), invalid UTF-8, line continuations and
// comments.
func plainText(line string) bool {
	if len(line) > maxLine || !utf8.ValidString(line) {
		return false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return !strings.Contains(line, "\\\n") && !strings.Contains(line, "#")
}

func collect(st *syntax.Stmt, cmds *[][]string) bool {
	if st == nil || st.Background || st.Coprocess || len(st.Comments) > 0 {
		return false
	}
	for _, r := range st.Redirs {
		if !harmlessRedirect(r) {
			return false
		}
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 || len(c.Args) == 0 {
			return false
		}
		words := make([]string, 0, len(c.Args))
		for _, w := range c.Args {
			s, ok := literal(w)
			if !ok {
				return false
			}
			words = append(words, s)
		}
		*cmds = append(*cmds, words)
		return true
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt, syntax.Pipe, syntax.PipeAll:
			return collect(c.X, cmds) && collect(c.Y, cmds)
		}
	}
	return false
}

// harmlessRedirect accepts duplicating a descriptor (2>&1) and writing to
// /dev/null; every other redirection may write a file.
func harmlessRedirect(r *syntax.Redirect) bool {
	w, ok := literal(r.Word)
	if !ok || r.Hdoc != nil {
		return false
	}
	switch r.Op {
	case syntax.DplOut, syntax.DplIn:
		return w == "-" || isDigits(w)
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
		return w == "/dev/null"
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// literal returns the value of a word bash does not expand: plain text,
// single quotes, double quotes holding plain text. Unquoted glob, brace and
// tilde characters make it not literal (a file named "--output=x" would
// expand from "*").
func literal(w *syntax.Word) (string, bool) {
	if w == nil || len(w.Parts) == 0 {
		return "", false
	}
	var b strings.Builder
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "*?[]{}\\") || tilde(p.Value, i == 0) {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || strings.Contains(l.Value, "\\") {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// tilde reports a "~" bash may expand: at the start of a word, or after
// "=" or ":" (bash expands those in arguments that look like assignments).
func tilde(lit string, first bool) bool {
	return (first && strings.HasPrefix(lit, "~")) || strings.Contains(lit, "=~") || strings.Contains(lit, ":~")
}
