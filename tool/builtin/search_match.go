package builtin

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// matcher finds the lines of a file that match a pattern, with grep's
// line semantics. It avoids the regexp engine wherever it can, since Go's
// regexp is far slower than a byte search:
//   - a pattern that is a plain literal is found with bytes.Index alone;
//   - a pattern with a literal every match must contain (the "Reader" of
//     `\w+Reader\(`) finds candidate lines with bytes.Index and runs the
//     regexp only on those lines;
//   - any other pattern runs once over the whole file in multi-line mode,
//     and the line of each hit is confirmed on its own.
//
// A matcher is immutable and safe for concurrent use.
type matcher struct {
	literal []byte         // the whole pattern is this literal: no regexp needed
	needle  []byte         // a literal every match contains, for prefiltering
	line    *regexp.Regexp // the pattern, applied to one line
	whole   *regexp.Regexp // the pattern in (?m) mode, applied to a whole file
	chunk   int            // bytes of a file given to whole at once
}

// lineMatch is one matching line, ready for display.
type lineMatch struct {
	line int
	text []byte
}

// goodNeedle reports whether prefiltering with lit pays off. Checking a
// candidate line costs a regexp call, so a needle that is on nearly every
// line is worse than one pass over the file. Three bytes or more are rare
// enough; a shorter needle only if it has a byte other than a lower-case
// letter or a blank (a "-" or "_" cuts the work five-fold on source code).
func goodNeedle(lit string) bool {
	if len(lit) >= 3 {
		return true
	}
	return strings.IndexFunc(lit, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r == ' ' || r == '\t')
	}) >= 0
}

func newMatcher(pattern string) (*matcher, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("pattern %q is not a valid Go regular expression: %v", pattern, regexpProblem(err))
	}
	if prefix, complete := re.LiteralPrefix(); complete && prefix != "" {
		return &matcher{literal: []byte(prefix)}, nil
	}
	m := &matcher{line: re}
	if parsed, err := syntax.Parse(pattern, syntax.Perl); err == nil {
		if lit := requiredLiteral(parsed); lit != "" && goodNeedle(lit) && !strings.Contains(lit, "\n") {
			m.needle = []byte(lit)
			return m, nil
		}
	}
	// The pattern compiled on its own, so wrapping it in a group is safe.
	m.whole, err = regexp.Compile("(?m:" + pattern + ")")
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %v", pattern, err)
	}
	m.chunk = backtrackChunk(pattern)
	return m, nil
}

// backtrackChunk returns how many bytes to give the whole-file regexp per
// call. Go's regexp runs its backtracker, several times faster than its
// NFA, only on inputs up to 256 Kbit divided by the program's size; files
// are therefore searched in line-aligned chunks below that bound.
func backtrackChunk(pattern string) int {
	const maxChunk, maxBacktrackVector = 8 << 10, 256 << 10
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return maxChunk
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil || len(prog.Inst) == 0 {
		return maxChunk
	}
	// A little under the bound: the (?m:...) wrapper adds instructions.
	return max(256, min(maxChunk, maxBacktrackVector/(len(prog.Inst)+4)-64))
}

func regexpProblem(err error) string {
	if e, ok := err.(*syntax.Error); ok {
		return fmt.Sprintf("%s in %q", strings.TrimPrefix(e.Code.String(), "invalid "), e.Expr)
	}
	return err.Error()
}

// requiredLiteral returns the longest case-sensitive literal that every
// match of re contains, or "".
func requiredLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return ""
		}
		return string(re.Rune)
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best := ""
		for _, sub := range re.Sub {
			if l := requiredLiteral(sub); len(l) > len(best) {
				best = l
			}
		}
		return best
	}
	return ""
}

// find returns up to limit matching lines of data, in order.
func (m *matcher) find(data []byte, limit int) []lineMatch {
	var out []lineMatch
	lineNo, counted := 1, 0 // lineNo is the number of the line at offset counted
	emit := func(start, end, at int) bool {
		lineNo += bytes.Count(data[counted:start], []byte{'\n'})
		counted = start
		out = append(out, lineMatch{line: lineNo, text: displayLine(data[start:end], at-start)})
		return len(out) < limit
	}
	pos := 0
	for pos < len(data) {
		var at int
		switch {
		case m.literal != nil:
			i := bytes.Index(data[pos:], m.literal)
			if i < 0 {
				return out
			}
			at = pos + i
		case m.needle != nil:
			i := bytes.Index(data[pos:], m.needle)
			if i < 0 {
				return out
			}
			at = pos + i
		default:
			if at = m.findChunked(data, pos); at < 0 {
				return out
			}
			if at == len(data) && data[at-1] == '\n' {
				return out // an empty match after the last line: no line there
			}
		}
		start := bytes.LastIndexByte(data[:at], '\n') + 1
		end := len(data)
		if i := bytes.IndexByte(data[at:], '\n'); i >= 0 {
			end = at + i
		}
		line := trimCR(data[start:end])
		ok := true
		if m.literal == nil {
			// Confirm on the line alone: a multi-line hit may cross
			// lines, and the needle is only a candidate.
			loc := m.line.FindIndex(line)
			ok = loc != nil
			if ok {
				at = start + loc[0]
			}
		} else if at >= start+len(line) {
			ok = false // the literal ends in the CR of a CRLF line
		}
		if ok && !emit(start, start+len(line), at) {
			return out
		}
		pos = end + 1
	}
	return out
}

// findChunked returns the offset of the first match of m.whole at or after
// pos (a line start), or -1. Chunks end after a newline, so no line is split
// and ^ and $ keep their line meaning.
func (m *matcher) findChunked(data []byte, pos int) int {
	for pos < len(data) {
		end := len(data)
		if pos+m.chunk < len(data) {
			if i := bytes.LastIndexByte(data[pos:pos+m.chunk], '\n'); i >= 0 {
				end = pos + i + 1
			} else if i := bytes.IndexByte(data[pos+m.chunk:], '\n'); i >= 0 {
				end = pos + m.chunk + i + 1
			}
		}
		if loc := m.whole.FindIndex(data[pos:end]); loc != nil {
			return pos + loc[0]
		}
		pos = end
	}
	return -1
}

// displayLine copies line for output, cutting a long one to a window around
// the match at offset at.
func displayLine(line []byte, at int) []byte {
	if len(line) <= searchMaxLineLen {
		return bytes.Clone(line)
	}
	from := 0
	if at > searchMaxLineLen/4 {
		from = at - searchMaxLineLen/4
		for from < len(line) && from > 0 && line[from]&0xC0 == 0x80 {
			from++
		}
	}
	out := []byte(nil)
	if from > 0 {
		out = append(out, "… "...)
	}
	return append(out, capLine(line[from:], searchMaxLineLen)...)
}
