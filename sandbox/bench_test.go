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
// `true` started plainly, and under each policy in each regime (with
// namespaces where the kernel allows them, and without, as where it
// refuses them). The sandbox's cost is the difference between Unconfined
// and a regime's policy.
func BenchmarkStart(b *testing.B) {
	requireLandlock(b)
	dir := b.TempDir()
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
	regimes := map[string][]Option{"NoNamespaces": {WithNamespaces(false)}}
	if ok, _ := ProbeNamespaces(); ok {
		regimes["Namespaces"] = nil
	}
	for _, name := range []string{"Namespaces", "NoNamespaces"} {
		opts, ok := regimes[name]
		if !ok {
			continue
		}
		sb, err := New(dir, opts...)
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range []Policy{ReadOnly, WorkspaceWrite} {
			b.Run(name+"/"+p.String(), func(b *testing.B) {
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
