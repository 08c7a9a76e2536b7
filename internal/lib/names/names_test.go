package names

import (
	"regexp"
	"strings"
	"testing"
)

// TestValidMatchesTheRules checks Valid against the rules it replaced,
// written as regexps, on every string of up to three characters from an
// alphabet of each class, and at the length limit.
func TestValidMatchesTheRules(t *testing.T) {
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
	for _, c := range []struct {
		rule  string
		upper bool
		punct string
	}{
		{`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`, true, "._-"}, // skills
		{`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`, true, "_-"},   // slash commands
		{`^[a-z0-9][a-z0-9_-]{0,63}$`, false, "_-"},        // sub-agent definitions
	} {
		rule := regexp.MustCompile(c.rule)
		for _, name := range names {
			if got, want := Valid(name, c.upper, c.punct), rule.MatchString(name); got != want {
				t.Errorf("Valid(%q, %v, %q) = %v, the rule %s says %v", name, c.upper, c.punct, got, rule, want)
			}
		}
	}
}
