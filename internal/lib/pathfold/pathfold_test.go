package pathfold

import "testing"

func TestWithin(t *testing.T) {
	for _, c := range []struct {
		dir, p string
		want   bool
	}{
		{"/home/u/.ssh", "/home/u/.ssh", true},
		{"/home/u/.ssh", "/home/u/.ssh/id_rsa", true},
		{"/home/u/.ssh", "/home/u/.SSH/id_rsa", true},
		{"/home/u/.ssh", "/home/u/.\u017fsh/id_rsa", true},   // long s
		{"/home/u/.kube", "/home/u/.\u212aube/config", true}, // Kelvin sign
		{"/home/u/.ssh", "/home/u/.sshx/id_rsa", false},
		{"/home/u/.ssh", "/home/u", false},
		{"/home/u/.ssh", "/home/v/.ssh", false},
		{"/", "/anything", true},
	} {
		if got := Within(c.dir, c.p); got != c.want {
			t.Errorf("Within(%q, %q) = %v, want %v", c.dir, c.p, got, c.want)
		}
	}
}

func TestSame(t *testing.T) {
	if !Same("/w/P.CFG", "/w/p.cfg") || Same("/w/p.cfg", "/w/p.cfg/x") || Same("/w/a", "/w/b") {
		t.Error("Same compares whole paths under case folding")
	}
}
