package service_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
)

// injectScript plans with markdown that tries to put script in the page.
const injectScript = `{"turns": [
  {"calls": [{"name": "submit_plan", "input": {"title": "<img src=x onerror=alert(1)>", "content": "# Steps\n\n<script>alert('plan')</script>\n\n[click](javascript:alert(2))\n\n**bold**", "steps": ["<b>one</b>"]}}]}
]}`

// The page renders the plan's markdown on the server with raw HTML left out
// and javascript: links dropped; titles and steps are escaped.
func TestPageEscapesThePlan(t *testing.T) {
	e := newEnv(t, injectScript)
	id := e.create(e.tokA, map[string]any{"workdir": e.rootA, "mode": "plan", "prompt": "plan it"})
	s := e.subscribe(id, e.tokA, "")
	s.until("state", map[string]any{"status": "awaiting_approval", "running": false})

	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(e.ts.URL + "/s/" + id)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/login" {
		t.Fatalf("without a login the page went to %s, want /login", resp.Request.URL)
	}
	if r, _ := c.PostForm(e.ts.URL+"/login", url.Values{"token": {"h9_wrong"}}); r.StatusCode != 401 {
		t.Fatalf("wrong token login: %d", r.StatusCode)
	}
	resp, err = c.PostForm(e.ts.URL+"/login", url.Values{"token": {e.tokA}, "next": {"/s/" + id}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(body)
	if resp.StatusCode != 200 || !strings.Contains(page, "<strong>bold</strong>") {
		t.Fatalf("session page: %d\n%s", resp.StatusCode, page)
	}
	for _, bad := range []string{"<script>alert", `href="javascript:`, "<img src=x", "<b>one</b>"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("CSP = %q", csp)
	}
	for _, ck := range jar.Cookies(resp.Request.URL) {
		if ck.Name == "harness9_token" && ck.Value != e.tokA {
			t.Errorf("cookie value %q", ck.Value)
		}
	}
	// A login redirect cannot leave the site.
	resp, _ = c.PostForm(e.ts.URL+"/login", url.Values{"token": {e.tokA}, "next": {"//evil.example/"}})
	resp.Body.Close()
	if resp.Request.URL.Host != strings.TrimPrefix(e.ts.URL, "http://") {
		t.Errorf("login redirected to %s", resp.Request.URL)
	}
}
