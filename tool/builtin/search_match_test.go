package builtin

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// The neighbour check rejects needle occurrences by the bytes around them;
// it must never reject a line the regexp matches.
func TestMatcherNeighboursAgreeWithRegexp(t *testing.T) {
	text := strings.Join([]string{
		"2026-11-30 dates", "x-1 - y", "1-2-3", "12345-67-89x", "-12-34", "1234-56-", "ab-cd", "1234-56-78",
		"é-ü", "日本-語", "\xff-\xfe", "a--b", "a-\tb", "Reader) Read(", "xReader) Read(", " Reader) Read(",
		"foo_bar(", "_bar(", "foo_(", "x:=1", "a, b", "END",
	}, "\n")
	for _, p := range []string{
		`[0-9]{4}-[0-9]{2}-[0-9]{2}`, `\d+-\d`, `[a-z]-[a-z]`, `.-.`, `[^a-z]-[^0-9]`, `\w+Reader\) Read\(`,
		`[a-z]+_[a-z]*\(`, `(\d|x)-(1|2)`, `[é日]-[ü語]`, `[^\x00-\x7f]-[^\x00-\x7f]`, `-\s`, `x:=\d`, `\w, \w`,
		`(?i:E)ND`, `(ab|x)-`,
	} {
		m, err := newMatcher(p)
		if err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile(p)
		var want, got []int
		for i, l := range strings.Split(text, "\n") {
			if re.MatchString(l) {
				want = append(want, i+1)
			}
		}
		for _, lm := range m.find([]byte(text), 1<<20) {
			got = append(got, lm.line)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("pattern %q: lines %v, want %v", p, got, want)
		}
	}
}

func TestNeighbourSets(t *testing.T) {
	for _, c := range []struct {
		pattern             string
		before, after       string // bytes in the set, or "nil"
		notBefore, notAfter byte
	}{
		{`[0-9]{4}-[0-9]{2}`, "0123456789", "0123456789", 'a', '-'},
		{`\w+Reader\(`, "_aZ9", "nil", '(', 0},
		{`x*-[yz]`, "nil", "yz", 0, 'x'},
	} {
		m, err := newMatcher(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		check := func(side string, set *[256]bool, want string, not byte) {
			if want == "nil" {
				if set != nil {
					t.Errorf("%q: %s set is not nil", c.pattern, side)
				}
				return
			}
			if set == nil {
				t.Fatalf("%q: no %s set", c.pattern, side)
			}
			for _, b := range []byte(want) {
				if !set[b] {
					t.Errorf("%q: %s set lacks %q", c.pattern, side, b)
				}
			}
			if set[not] {
				t.Errorf("%q: %s set has %q", c.pattern, side, not)
			}
		}
		check("before", m.before, c.before, c.notBefore)
		check("after", m.after, c.after, c.notAfter)
	}
}
