package shellgate

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// maxCommand bounds the command text the gate will parse. A planning
// command longer than this is not exploration.
const maxCommand = 64 << 10

// ambiguous ends the refusals of input that mvdan.cc/sh and bash could read
// differently.
const ambiguous = "; bash and the gate's parser could read this differently, so it cannot be verified. Write the command more plainly"

// parse refuses input the gate's parser and bash could disagree on, parses
// the rest, and refuses parsed constructs whose meaning bash decides
// differently. What is left is what bash will run.
func parse(command string) (*syntax.File, error) {
	if err := checkText(command); err != nil {
		return nil, err
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).
		Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, &CommandError{Reason: fmt.Sprintf("the command could not be parsed (%v), so it cannot be verified as read-only", err)}
	}
	if err := checkStructure(file, command); err != nil {
		return nil, err
	}
	return file, nil
}

// commentContinued finds a line holding a # and ending in a backslash:
// mvdan.cc/sh continues such a comment onto the next line, bash does not,
// so the next line would run unchecked. The # may sit in quotes; the line
// is refused all the same.
// Compiled on first use: every process start would pay for it at init.
var commentContinued = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)#.*\\$`) })

// checkText refuses, before parsing, bytes the two parsers treat
// differently: CR (bash keeps it in a word, so `\` CR LF is no line
// continuation for bash), other control characters, invalid UTF-8.
func checkText(command string) error {
	if strings.TrimSpace(command) == "" {
		return &CommandError{Reason: "the command is empty"}
	}
	if len(command) > maxCommand {
		return &CommandError{Reason: fmt.Sprintf("the command is longer than %d bytes", maxCommand)}
	}
	if !utf8.ValidString(command) {
		return &CommandError{Reason: "the command is not valid UTF-8" + ambiguous}
	}
	for i := 0; i < len(command); i++ {
		c := command[i]
		if c == '\r' {
			return &CommandError{Reason: "the command contains a carriage return (CR, as in CR LF line ends)" + ambiguous + ", with LF line ends only"}
		}
		if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			return &CommandError{Reason: fmt.Sprintf("the command contains the control character %#02x%s", c, ambiguous)}
		}
	}
	if t := strings.TrimRight(command, "\n"); (len(t)-len(strings.TrimRight(t, `\`)))%2 == 1 {
		return &CommandError{Reason: "the command ends in a backslash, which continues it into nothing" + ambiguous}
	}
	if m := commentContinued().FindString(command); m != "" {
		return &CommandError{Command: m, Reason: "a line with a # ends in a backslash" + ambiguous + ": end the line without the backslash"}
	}
	return nil
}

// checkStructure refuses parsed constructs bash may read differently:
// here-documents inside substitutions or not plainly laid out (checkHeredoc),
// backquotes, comments inside substitutions, extended globs, a subshell
// opening right after $( or ( (bash may take "((" for arithmetic), a
// redirection to a number followed by < or >, and a word the parser ended
// at a #.
func checkStructure(file *syntax.File, src string) error {
	var err error
	substDepth := 0
	var stack []syntax.Node
	syntax.Walk(file, func(n syntax.Node) bool {
		if err != nil {
			return false
		}
		if n == nil { // leaving the node on top of the stack
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			switch top.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst:
				substDepth--
			}
			return true
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *syntax.CmdSubst:
			substDepth++
			switch {
			case n.Backquotes:
				err = refuse(n, "backquote substitution `...` has quoting rules"+ambiguous+": use $(...)")
			case n.TempFile || n.ReplyVar:
				err = refuse(n, "this substitution is not bash")
			case len(n.Stmts) > 0 && opensSubshell(n.Stmts[0], n.Left.Offset()+2):
				err = refuse(n, "$( followed by ( is read as arithmetic $(( by bash"+ambiguous+": put a space between them, or drop the inner parentheses")
			}
		case *syntax.ProcSubst:
			substDepth++
		case *syntax.Subshell:
			if len(n.Stmts) > 0 && opensSubshell(n.Stmts[0], n.Lparen.Offset()+1) {
				err = refuse(n, "(( is arithmetic for bash"+ambiguous+": put a space between the parentheses")
			}
		case *syntax.Comment:
			if substDepth > 0 {
				err = &CommandError{Command: "#" + n.Text, Reason: "a comment inside $(...) or <(...)" + ambiguous}
			}
		case *syntax.Stmt:
			for _, r := range n.Redirs {
				if err == nil && (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) {
					err = checkHeredoc(n, r, src, substDepth > 0)
				}
			}
		case *syntax.Redirect:
			// bash reads digits followed by < or > as a descriptor number:
			// <0<f is < then 0<f for bash, <0 <f for the gate's parser.
			if w := n.Word; w != nil && n.Op != syntax.DplIn && n.Op != syntax.DplOut && len(w.Parts) == 1 && int(w.End().Offset()) < len(src) &&
				strings.IndexByte("<>", src[w.End().Offset()]) >= 0 {
				if lit, ok := w.Parts[0].(*syntax.Lit); ok && isDigits(lit.Value) {
					err = refuse(enclosingStmt(stack), "a redirection to a number followed by < or >"+ambiguous+": put a space between them")
				}
			}
		case *syntax.Word:
			// bash starts a comment only at the beginning of a word; where
			// the gate's parser ended a word at a # (<<'EOF'#x), bash goes on.
			if end := int(n.End().Offset()); end < len(src) && src[end] == '#' {
				err = refuse(n, "a # right after a word"+ambiguous+": put a space before it")
			}
		case *syntax.ExtGlob:
			err = refuse(n, "extended globs like @(...) and !(...) depend on shell options"+ambiguous)
		}
		return err == nil
	})
	return err
}

// enclosingStmt is the innermost statement on a Walk stack.
func enclosingStmt(stack []syntax.Node) syntax.Node {
	for i := len(stack) - 1; i >= 0; i-- {
		if st, ok := stack[i].(*syntax.Stmt); ok {
			return st
		}
	}
	return stack[0]
}

// opensSubshell reports whether a statement is a subshell whose ( sits at
// offset off, right after the $( or ( that contains it.
func opensSubshell(st *syntax.Stmt, off uint) bool {
	sub, ok := st.Cmd.(*syntax.Subshell)
	return ok && sub.Lparen.Offset() == off
}

// heredocDelim is what a here-document terminator may be: a plain word,
// quoted or not as a whole.
var heredocDelim = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]+$`) })

// checkHeredoc allows a here-document only where the two parsers agree on
// where its body ends: outside substitutions, with a plain terminator, the
// body starting on the line after the operator, and no line in the body
// that starts like the terminator or ends in a backslash (bash joins such
// a line with the next before comparing it with the terminator).
func checkHeredoc(st *syntax.Stmt, r *syntax.Redirect, src string, inSubst bool) error {
	if inSubst {
		return refuse(st, "a here-document inside $(...) or <(...)"+ambiguous+"; use a here-string (<<<) or a file")
	}
	delim, ok := literal(r.Word)
	if !ok || delim.glob || !heredocDelim().MatchString(delim.value) {
		return refuse(st, "a here-document terminator must be a plain word such as EOF")
	}
	lineEnd := strings.IndexByte(src[r.Word.End().Offset():], '\n')
	if lineEnd < 0 {
		return refuse(st, "the here-document has no body")
	}
	plain := refuse(st, "a here-document must begin on the line after <<, with one here-document per line"+ambiguous)
	if !closedLine(src[r.Word.End().Offset():][:lineEnd]) {
		return plain
	}
	bodyStart := int(r.Word.End().Offset()) + lineEnd + 1
	end := bodyStart
	if r.Hdoc != nil {
		if int(r.Hdoc.Pos().Offset()) != bodyStart {
			return plain
		}
		end = int(r.Hdoc.End().Offset())
	}
	terminator := func(line string) bool {
		if r.Op == syntax.DashHdoc {
			line = strings.TrimLeft(line, "\t")
		}
		return line == delim.value
	}
	// The body ends with the terminator line, or is followed by it: a
	// whole line either way.
	lines := strings.Split(src[bodyStart:end], "\n")
	switch next, _, _ := strings.Cut(src[end:], "\n"); {
	case terminator(lines[len(lines)-1]) && next == "":
		lines = lines[:len(lines)-1]
	case (end == bodyStart || src[end-1] == '\n') && terminator(next):
	default:
		return plain
	}
	body := strings.Join(lines, "\n")
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), delim.value) {
			return refuse(st, fmt.Sprintf("a line in the here-document begins with its terminator %q%s; choose another terminator", delim.value, ambiguous))
		}
		if strings.HasSuffix(line, `\`) {
			return refuse(st, "a line in the here-document ends in a backslash"+ambiguous)
		}
	}
	return nil
}

// closedLine reports whether the rest of a line after a here-document
// operator closes everything it opens: where the body begins depends on
// where bash sees the line end, and a quote, substitution or backslash
// continuing onto the next line moves it.
func closedLine(rest string) bool {
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '\\':
			if i+1 >= len(rest) {
				return false
			}
			i++
		case '\'':
			end := strings.IndexByte(rest[i+1:], '\'')
			if end < 0 {
				return false
			}
			i += end + 1
		case '"':
			closed := false
			for i++; i < len(rest); i++ {
				if rest[i] == '\\' {
					i++
					continue
				}
				if rest[i] == '`' || rest[i] == '$' && i+1 < len(rest) && rest[i+1] == '(' {
					return false
				}
				if rest[i] == '"' {
					closed = true
					break
				}
			}
			if !closed {
				return false
			}
		case '`':
			return false
		case '(':
			if i > 0 && strings.IndexByte("$<>", rest[i-1]) >= 0 {
				return false
			}
		case '#':
			if i == 0 || rest[i-1] == ' ' || rest[i-1] == '\t' {
				return true // a comment
			}
		}
	}
	return true
}
