//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkStart measures what confining costs per command: the same
// `true` started plainly, under each policy, and (to separate the parts)
// with the namespaces alone. The sandbox's cost is the difference between
// Unconfined and a policy; the target is under 5 ms.
func BenchmarkStart(b *testing.B) {
	requireLandlock(b)
	dir := b.TempDir()
	sb, err := New(dir)
	if err != nil {
		b.Fatal(err)
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true(1)")
	}
	b.Run("Unconfined", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command(truePath).Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, p := range []Policy{ReadOnly, WorkspaceWrite} {
		b.Run(p.String(), func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(truePath)
				proc, err := sb.Start(cmd, p)
				if err != nil {
					b.Fatal(err)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
				proc.Cleanup()
			}
		})
	}
}

// BenchmarkRuleset is the in-process part of confining one command:
// computing the grants (with the deny-list carving) and building the
// Landlock ruleset. It is CPU-bound and steadier than BenchmarkStart on a
// loaded machine.
func BenchmarkRuleset(b *testing.B) {
	requireLandlock(b)
	home, _ := os.UserHomeDir()
	sb, err := New(b.TempDir(), WithDeny(filepath.Join(home, ".ssh")), WithToolchains(home, os.Getenv("PATH")))
	if err != nil {
		b.Fatal(err)
	}
	scratch := b.TempDir()
	for _, p := range []Policy{ReadOnly, WorkspaceWrite} {
		b.Run(p.String(), func(b *testing.B) {
			for b.Loop() {
				fd, _, err := sb.config(false).NewRulesetFD(rules(sb.grants(p, scratch))...)
				if err != nil {
					b.Fatal(err)
				}
				unix.Close(fd)
			}
		})
	}
}
