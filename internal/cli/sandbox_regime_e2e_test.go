package cli_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/sandbox"
)

// scanScript looks through every process outside its own session for a
// canary (given reversed, so no command line holds it): in their
// environment, command line and readable memory. It prints what it saw.
const scanScript = `import os, sys
canary = sys.argv[1][::-1].encode()
own = os.getsid(0)
found, others = [], []
for d in os.listdir('/proc'):
    if not d.isdigit():
        continue
    pid = int(d)
    try:
        if os.getsid(pid) == own:
            continue
    except OSError:
        continue
    try:
        others.append(open('/proc/%d/cmdline' % pid, 'rb').read().split(b'\0')[0].decode(errors='replace'))
    except OSError:
        pass
    for f in ('environ', 'cmdline'):
        try:
            if canary in open('/proc/%d/%s' % (pid, f), 'rb').read():
                found.append('%d/%s' % (pid, f))
        except OSError:
            pass
    try:
        mem = open('/proc/%d/mem' % pid, 'rb', 0)
        for line in open('/proc/%d/maps' % pid):
            r, perms = line.split()[:2]
            a, b = (int(x, 16) for x in r.split('-'))
            if not perms.startswith('r') or b - a > 256 << 20:
                continue
            try:
                mem.seek(a)
                if canary in mem.read(b - a):
                    found.append('%d/mem' % pid)
                    break
            except (OSError, OverflowError, ValueError):
                pass
    except OSError:
        pass
print('scanned others:', sorted(set(others)))
print('FOUND' if found else 'CLEAN', found)
`

// regimeHarness returns a harness whose binary runs in the regime named:
// "namespaces" as it is, "refused" inside a user namespace where the
// kernel refuses new ones (user.max_user_namespaces = 0), as AppArmor's
// restriction or a container's seccomp profile would.
func regimeHarness(t *testing.T, regime string) *harness {
	t.Helper()
	h := newHarness(t)
	if regime == "namespaces" {
		if ok, why := sandbox.ProbeNamespaces(); !ok {
			if os.Getenv("CI") != "" {
				t.Fatalf("no user namespaces on this CI machine: %s", why)
			}
			t.Skip(why)
		}
		return h
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("unshare (util-linux) is needed")
		}
		t.Skip("unshare is not installed (apt-get install util-linux)")
	}
	wrapper := filepath.Join(t.TempDir(), "harness9-refused")
	script := fmt.Sprintf("#!/bin/sh\nexec %s --user --map-root-user sh -c 'echo 0 > /proc/sys/user/max_user_namespaces && exec \"$0\" \"$@\"' %s \"$@\"\n", unshare, binary(t))
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	h.bin = wrapper
	return h
}

// The provider key in the harness's environment (and so in its memory)
// is out of reach of every command the model runs, in both regimes and
// both modes, and doctor names the regime in force.
func TestBinaryHarnessSecretsUnreadable(t *testing.T) {
	if sup := sandbox.Probe(); !sup.Available {
		t.Skipf("no kernel sandbox: %s", sup.Reason)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	const canary = "sk-CANARY-0a1b2c3d4e5f"
	reversed := func(s string) string {
		b := []byte(s)
		for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
		return string(b)
	}(canary)
	for _, regime := range []string{"namespaces", "refused"} {
		t.Run(regime, func(t *testing.T) {
			h := regimeHarness(t, regime)
			h.env = append(h.env, "OPENAI_API_KEY="+canary, "HARNESS9_ANY_TOKEN="+canary)
			if err := os.WriteFile(filepath.Join(h.workdir, "scan.py"), []byte(scanScript), 0o644); err != nil {
				t.Fatal(err)
			}
			doc := h.run("", "-C", h.workdir, "doctor", "--offline")
			want := map[string]string{"namespaces": "regime: user namespaces", "refused": "regime: no user namespaces"}[regime]
			if !strings.Contains(doc.stdout, want) {
				t.Errorf("doctor does not say %q:\n%s", want, doc.stdout)
			}
			// Plan Mode's parse gate refuses python and every path in /proc
			// (the kernel's side of that policy is tested in package
			// sandbox); there ps must run and not show the harness.
			work := "python3 scan.py " + reversed + "; cat /proc/$PPID/environ /proc/1/environ | tr '\\0' '\\n' | grep -c " + reversed
			plan := "ps aux; echo CLEAN"
			for _, args := range [][]string{
				{"run", "--json", "-C", h.workdir, "-m", h.script(bashTurns(work)), "work"},
				{"run", "--plan", "--approve", "never", "--json", "-C", h.workdir, "-m", h.script(bashTurns(plan)), "plan"},
			} {
				r := h.run("", args...)
				if r.code != 0 {
					t.Fatalf("%v: exit %d\n%s", args[:2], r.code, r.stderr)
				}
				if strings.Contains(r.stdout, canary) || strings.Contains(r.stdout, "FOUND") {
					t.Errorf("%v: a command read the harness's key:\n%s", args[:2], r.stdout)
				}
				if !strings.Contains(r.stdout, "CLEAN") {
					t.Errorf("%v: the scan did not run:\n%s", args[:2], r.stdout)
				}
				if regime == "namespaces" && strings.Contains(r.stdout, "harness9") {
					t.Errorf("%v: the harness is visible to the command:\n%s", args[:2], r.stdout)
				}
			}
		})
	}
}
