// Package browsertest starts a headless Chromium for tests of the
// plan-review page: Debian's chromium, driven through chromedp. Without
// it the test skips with the install command, and fails when CI is set
// (.ci/run installs it).
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Install is the command that installs the browser the tests need.
const Install = "apt-get install -y chromium"

// Path returns the chromium binary, or skips (fails in CI) without one.
func Path(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "/usr/bin/chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed; CI must install it (" + Install + ")")
	}
	t.Skip("chromium is not installed; install it with: " + Install)
	return ""
}

// Start starts a headless Chromium with a profile of its own and returns
// the context chromedp actions run in. The whole browser session is
// bounded (2 minutes), so a page that never gets there fails the test
// instead of hanging it; the browser ends with the test.
func Start(t testing.TB) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(Path(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelT(); cancel(); cancelAlloc() })
	return ctx
}
