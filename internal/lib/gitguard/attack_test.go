package gitguard_test

import (
	"testing"

	"github.com/harness9/harness9/internal/lib/gitguard"
	"github.com/harness9/harness9/internal/lib/gitguard/gitattack"
)

func options(r *gitattack.Repo) gitguard.Options {
	return gitguard.Options{Home: r.Home, Global: []string{r.Global}}
}

// Each attack plants something the user's git would run; after Restore the
// user's git status and git commit, run unconfined, must run none of it.
func TestRestoreUndoesEveryAttack(t *testing.T) {
	for _, c := range gitattack.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			c.Prove(t)
			r := c.Start(t)
			snap := gitguard.Take(r.Dir, options(r))
			r.Sh(t, ".", c.Attack)
			fixes := snap.Restore()
			if len(fixes) == 0 {
				t.Errorf("Restore undid nothing")
			}
			c.Check(t, r)
			t.Logf("fixes: %v", fixes)
		})
	}
}

// Ordinary work that touches git's files keeps its effect, and Restore
// reports nothing.
func TestRestoreKeepsOrdinaryWork(t *testing.T) {
	for _, l := range gitattack.LegitCases() {
		t.Run(l.Command, func(t *testing.T) {
			t.Parallel()
			r := l.Start(t)
			snap := gitguard.Take(r.Dir, options(r))
			r.Sh(t, ".", l.Command)
			if fixes := snap.Restore(); len(fixes) > 0 {
				t.Errorf("Restore undid %v", fixes)
			}
			l.Check(t, r)
		})
	}
}
