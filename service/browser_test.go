package service_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/harness9/harness9/internal/lib/browsertest"
)

// A reviewer logs in, sees the plan, clicks approve, and watches the todo
// list reach n/n, in a real browser.
func TestBrowserApprovesPlan(t *testing.T) {
	e := newEnv(t, planScript)
	ctx := browsertest.Start(t)
	id := e.create(e.tokA, map[string]any{"workdir": e.rootA, "mode": "plan", "prompt": "write two files"})
	s := e.subscribe(id, e.tokA, "")
	s.until("state", map[string]any{"status": "awaiting_approval", "running": false})

	err := chromedp.Do(ctx,
		chromedp.Navigate(e.ts.URL+"/s/"+id),
		chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), e.tokA),
		chromedp.Click(chromedp.ID("login")),
		chromedp.WaitVisible(chromedp.ID("plan-title")),
	)
	if err != nil {
		t.Fatalf("log in and load the page: %v", err)
	}
	text := func(id string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID(id)))
		if err != nil {
			t.Fatalf("read #%s: %v", id, err)
		}
		return v
	}
	title, steps, count := text("plan-title"), text("plan-steps"), text("todo-count")
	if !strings.Contains(title, "Two files") || !strings.Contains(steps, "write b.txt") || count != "0/2" {
		t.Fatalf("page shows title %q, steps %q, counter %q", title, steps, count)
	}
	if content := text("plan-content"); !strings.Contains(content, "Write a and b.") {
		t.Errorf("plan markdown shown as %q", content)
	}
	err = chromedp.Do(ctx,
		chromedp.WaitEnabled(chromedp.ID("approve-auto")),
		chromedp.Click(chromedp.ID("approve-auto")),
	)
	if err != nil {
		t.Fatalf("click approve: %v", err)
	}
	reached, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("todo-count").textContent === "2/2"`,
		chromedp.WithPollingInterval(50*time.Millisecond)))
	if err != nil || !reached {
		t.Fatalf("after approving, the counter shows %q: %v", text("todo-count"), err)
	}
	s.until("done", map[string]any{"status": "completed"})
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(e.rootA, f)); err != nil {
			t.Errorf("%s after approving in the browser: %v", f, err)
		}
	}
	reached, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("lines").textContent.includes("Both files written.")`,
		chromedp.WithPollingInterval(50*time.Millisecond)))
	if err != nil || !reached {
		t.Errorf("the live transcript does not show the last message: %q %v", text("lines"), err)
	}
}
