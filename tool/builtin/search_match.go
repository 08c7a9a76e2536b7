package builtin

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
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
	literal []byte // the whole pattern is this literal: no regexp needed
	needle  []byte // a literal every match contains, for prefiltering
	// before and after, when not nil, hold the bytes that can precede and
	// follow the needle inside a match; an occurrence with other
	// neighbours is rejected with two lookups instead of a regexp call.
	before, after *[256]bool
	// run, when not nil, is a byte class every match has runLen
	// consecutive bytes of (the [0-9]{4} of `[A-Z]{3}[0-9]{4}`): lines
	// without such a run are rejected by a byte scan, without the regexp.
	run    *[256]bool
	runLen int
	line   *regexp.Regexp // the pattern, applied to one line
	whole  *regexp.Regexp // the pattern in (?m) mode, applied to a whole file
	chunk  int            // bytes of a file given to whole at once
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
			m.before, m.after = neighbours(parsed, lit)
			return m, nil
		}
	}
	if parsed, err := syntax.Parse(pattern, syntax.Perl); err == nil {
		if set, n := requiredRun(parsed); set != nil {
			m.run, m.runLen = set, n
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
			if !m.neighboursFit(data, at) {
				pos = at + 1
				continue
			}
		case m.run != nil:
			if at = m.nextRun(data, pos); at < 0 {
				return out
			}
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

// nextRun returns the offset of the first run of m.runLen bytes of the
// class m.run at or after pos, or -1.
func (m *matcher) nextRun(data []byte, pos int) int {
	n := 0
	for i := pos; i < len(data); i++ {
		if !m.run[data[i]] {
			n = 0
			continue
		}
		if n++; n == m.runLen {
			return i + 1 - n
		}
	}
	return -1
}

// requiredRun finds, in the top-level sequence of re, a class of ASCII
// bytes that every match repeats at least twice in a row, and returns the
// most selective one (the longest run of the smallest class), or nil.
// Classes wider than 62 bytes (\w, .) are on nearly every line and are
// not worth a scan.
func requiredRun(re *syntax.Regexp) (*[256]bool, int) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	var best *[256]bool
	bestN, bestScore := 0, 0
	consider := func(class *syntax.Regexp, n int) {
		if n < 2 {
			return
		}
		set, size := asciiClass(class)
		if set == nil || size > 62 {
			return
		}
		if score := n * (64 - size); score > bestScore {
			best, bestN, bestScore = set, n, score
		}
	}
	for i := 0; i < len(subs); i++ {
		sub := subs[i]
		switch {
		case sub.Op == syntax.OpRepeat && sub.Sub[0].Op == syntax.OpCharClass:
			consider(sub.Sub[0], sub.Min)
		case sub.Op == syntax.OpCharClass:
			// [0-9][0-9][0-9]: the same class written out.
			n := 1
			for i+n < len(subs) && subs[i+n].Op == syntax.OpCharClass && slices.Equal(subs[i+n].Rune, sub.Rune) {
				n++
			}
			consider(sub, n)
			i += n - 1
		}
	}
	return best, bestN
}

// asciiClass returns the bytes of an ASCII-only character class and their
// number, or nil when the class has other runes.
func asciiClass(re *syntax.Regexp) (*[256]bool, int) {
	var set [256]bool
	size := 0
	for i := 0; i+1 < len(re.Rune); i += 2 {
		lo, hi := re.Rune[i], re.Rune[i+1]
		if hi >= utf8.RuneSelf {
			return nil, 0
		}
		for r := lo; r <= hi; r++ {
			set[r] = true
			size++
		}
	}
	return &set, size
}

// neighboursFit reports whether the needle found at offset at has
// neighbours a match allows.
func (m *matcher) neighboursFit(data []byte, at int) bool {
	if m.before != nil && (at == 0 || !m.before[data[at-1]]) {
		return false
	}
	next := at + len(m.needle)
	return m.after == nil || next < len(data) && m.after[data[next]]
}

// neighbours returns the bytes that can come right before and right after
// lit in a match of re, when lit is an element of re's top-level
// concatenation (the common shape: `[0-9]{4}-[0-9]{2}`, `\w+Reader\(`).
// A side is nil when it is unknown or may be empty.
func neighbours(re *syntax.Regexp, lit string) (before, after *[256]bool) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		return nil, nil
	}
	for k, sub := range re.Sub {
		if sub.Op != syntax.OpLiteral || sub.Flags&syntax.FoldCase != 0 || string(sub.Rune) != lit {
			continue
		}
		if k > 0 {
			before = edgeBytes(re.Sub[k-1], true)
		}
		if k+1 < len(re.Sub) {
			after = edgeBytes(re.Sub[k+1], false)
		}
		return before, after
	}
	return nil, nil
}

// edgeBytes returns the set of bytes a non-empty match of re can end with
// (last) or start with, or nil when re may match the empty string or the
// set is not worth working out.
func edgeBytes(re *syntax.Regexp, last bool) *[256]bool {
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return edgeBytes(re.Sub[0], last)
	case syntax.OpRepeat:
		if re.Min == 0 {
			return nil
		}
		return edgeBytes(re.Sub[0], last)
	case syntax.OpConcat:
		if len(re.Sub) == 0 {
			return nil
		}
		if last {
			return edgeBytes(re.Sub[len(re.Sub)-1], last)
		}
		return edgeBytes(re.Sub[0], last)
	case syntax.OpAlternate:
		var set [256]bool
		for _, sub := range re.Sub {
			s := edgeBytes(sub, last)
			if s == nil {
				return nil
			}
			for b, ok := range s {
				set[b] = set[b] || ok
			}
		}
		return &set
	case syntax.OpLiteral:
		if len(re.Rune) == 0 || re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		r := re.Rune[0]
		if last {
			r = re.Rune[len(re.Rune)-1]
		}
		var set [256]bool
		enc := utf8.AppendRune(nil, r)
		if last {
			set[enc[len(enc)-1]] = true
		} else {
			set[enc[0]] = true
		}
		return &set
	case syntax.OpCharClass:
		var set [256]bool
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			for r := lo; r <= min(hi, utf8.RuneSelf-1); r++ {
				set[r] = true
			}
			if hi >= utf8.RuneSelf {
				// Any non-ASCII byte: a multi-byte rune's lead or last
				// byte, or an invalid byte the regexp reads as U+FFFD.
				for b := utf8.RuneSelf; b < 256; b++ {
					set[b] = true
				}
			}
		}
		return &set
	}
	return nil
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
