package gitguard_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/internal/lib/gitguard"
	"github.com/harness9/harness9/internal/lib/gitguard/gitattack"
)

// BenchmarkGuard is what the git guard adds to every WorkspaceWrite
// command: a record before (Take) and a judgement after (Restore), in a
// fresh repository and in one whose index has 100,000 entries, read again
// (the command changed the index) or not.
func BenchmarkGuard(b *testing.B) {
	small := gitattack.NewRepo(b, false)
	large := gitattack.NewRepo(b, false)
	var lines strings.Builder
	blob := strings.TrimSpace(large.Sh(b, ".", "git hash-object -w a.txt"))
	for i := range 100000 {
		fmt.Fprintf(&lines, "100644 %s\tdir%03d/file%05d.go\n", blob, i/1000, i)
	}
	cmd := exec.Command("git", "update-index", "--index-info")
	cmd.Dir, cmd.Env, cmd.Stdin = large.Dir, large.Env(), strings.NewReader(lines.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	index := filepath.Join(large.Dir, ".git", "index")
	for _, c := range []struct {
		name    string
		r       *gitattack.Repo
		touched bool
	}{{"fresh repository", small, false}, {"100k-entry index", large, false}, {"100k-entry index changed", large, true}} {
		b.Run(c.name, func(b *testing.B) {
			opt := gitguard.Options{Home: c.r.Home, Global: []string{c.r.Global}}
			for b.Loop() {
				if c.touched {
					now := time.Now()
					_ = os.Chtimes(index, now, now)
				}
				s := gitguard.Take(c.r.Dir, opt)
				if fixes := s.Restore(); len(fixes) > 0 {
					b.Fatal(fixes)
				}
			}
		})
	}
}
