//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// refusedSuite are the attack tests run again where the kernel really
// refuses user namespaces, not only where the sandbox is told not to use
// them (WithNamespaces(false)).
const refusedSuite = "^(TestRegimeWhereRefused|TestNoNetwork|TestNothingOutlivesTheCall|TestOrphansOfAKilledHelperEnd|" +
	"TestSignalsDoNotReachTheHarness|TestHarnessSecretsUnreadable|TestIOUringRefused|TestForkFloodStopped|" +
	"TestFileSizeLimit|TestReadOnlyWritesNothing|TestReadOnlyReadsOnlyTheWorkdir|TestNoUnixSocketConnections|" +
	"TestNoDatagramsToSocketFiles|TestNetworkAccessOpensNoSocketFiles|TestCommandEnvironmentDoesNotReachTheHelper|" +
	"TestInheritedFilesDoNotReachTheCommand)$"

// TestUserNamespacesRefused runs the attack suite in a user namespace
// whose user.max_user_namespaces is 0: there the kernel refuses the
// commands' namespaces as AppArmor's restriction or a container's seccomp
// profile would, and the sandbox must fall back to its other regime and
// still hold.
func TestUserNamespacesRefused(t *testing.T) {
	requireLandlock(t)
	if os.Getenv(envRefused) != "" {
		t.Skip("already inside")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("unshare (util-linux) is needed to test a kernel that refuses user namespaces")
		}
		t.Skip("unshare is not installed (apt-get install util-linux)")
	}
	if ok, why := ProbeNamespaces(); !ok {
		t.Skipf("user namespaces are refused here already (%s): every test runs without them", why)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(unshare, "--user", "--map-root-user", "sh", "-c",
		`echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" -test.run "$1" -test.v`, self, refusedSuite)
	cmd.Env = append(os.Environ(), envRefused+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestRegimeWhereRefused") {
		t.Fatalf("the attack suite failed where user namespaces are refused: %v\n%s", err, out)
	}
}

// TestRegimeWhereRefused checks, inside TestUserNamespacesRefused, that
// the kernel does refuse: the suite must not pass by running with
// namespaces after all.
func TestRegimeWhereRefused(t *testing.T) {
	if os.Getenv(envRefused) == "" {
		t.Skip("runs inside TestUserNamespacesRefused")
	}
	w := newWorld(t)
	if r := w.sb.Regime(); r != RegimeNoNamespaces {
		t.Fatalf("regime %v where the kernel refuses user namespaces", r)
	}
	if ok, why := ProbeNamespaces(); ok || !strings.Contains(why, "refused") {
		t.Errorf("ProbeNamespaces() = %v, %q", ok, why)
	}
}
