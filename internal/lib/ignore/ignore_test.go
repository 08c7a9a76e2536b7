package ignore

import "testing"

func TestRulesNestAndNegate(t *testing.T) {
	root := (*Rules)(nil).With([]byte("# comment\n\n*.log\r\nbuild/\n"), nil)
	sub := root.With([]byte("!keep.log\n"), []string{"svc"})
	sibling := root.With([]byte("*.tmp\n"), []string{"web"})
	cases := []struct {
		r     *Rules
		parts []string
		dir   bool
		want  bool
	}{
		{nil, []string{"a.log"}, false, false},
		{root, []string{"a.log"}, false, true},
		{root, []string{"build"}, true, true},
		{root, []string{"build"}, false, false}, // "build/" matches directories only
		{root, []string{"svc", "keep.log"}, false, true},
		{sub, []string{"svc", "keep.log"}, false, false}, // the later, deeper rule wins
		{sub, []string{"svc", "other.log"}, false, true},
		{sub, []string{"web", "x.tmp"}, false, false}, // a sibling's rules do not leak
		{sibling, []string{"web", "x.tmp"}, false, true},
		{sibling, []string{"svc", "keep.log"}, false, true}, // nor the other way round
	}
	for _, c := range cases {
		if got := c.r.Ignored(c.parts, c.dir); got != c.want {
			t.Errorf("%v dir=%v: Ignored = %v, want %v", c.parts, c.dir, got, c.want)
		}
	}
	if root.With(nil, nil) != root || root.With([]byte("# only a comment\n"), nil) != root {
		t.Error("an ignore file without patterns must share its parent's rules")
	}
}
