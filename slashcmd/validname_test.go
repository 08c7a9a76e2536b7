package slashcmd

import (
	"regexp"
	"strings"
	"testing"
)

// TestValidNameMatchesRule checks the hand-written validName against the
// rule it replaced, written as a regexp, on every string of up to three
// characters from an alphabet of each class, and at the length limit.
func TestValidNameMatchesRule(t *testing.T) {
	rule := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)
	alphabet := []string{"a", "Z", "0", ".", "-", "_", " ", "/", "\n", "é", "\x00"}
	names := []string{""}
	for n, prev := 0, []string{""}; n < 3; n++ {
		var next []string
		for _, p := range prev {
			for _, c := range alphabet {
				next = append(next, p+c)
			}
		}
		names = append(names, next...)
		prev = next
	}
	for _, n := range []int{63, 64, 65, 200} {
		names = append(names, strings.Repeat("a", n), "a"+strings.Repeat("-", n-1), strings.Repeat("a", n-1)+"/")
	}
	for _, name := range names {
		if got, want := validName(name), rule.MatchString(name); got != want {
			t.Errorf("validName(%q) = %v, the rule %s says %v", name, got, rule, want)
		}
	}
}
