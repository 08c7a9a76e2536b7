package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harness9/harness9/tool"
)

// server is an httptest server that counts the requests it saw.
type server struct {
	*httptest.Server
	hits atomic.Int64
	mu   sync.Mutex
	reqs []*http.Request
}

func newServer(t *testing.T, h http.HandlerFunc) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.mu.Lock()
		s.reqs = append(s.reqs, r.Clone(context.Background()))
		s.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) addrPort(t *testing.T) netip.AddrPort {
	t.Helper()
	u, _ := url.Parse(s.URL)
	ap, err := netip.ParseAddrPort(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	return ap
}

func (s *server) port() string {
	u, _ := url.Parse(s.URL)
	return u.Port()
}

// fakeResolver maps host names to addresses; unknown names do not exist.
type fakeResolver map[string][]netip.Addr

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := f[strings.ToLower(strings.TrimSuffix(host, "."))]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("no such host %s", host)
}

func addrs(s ...string) []netip.Addr {
	out := make([]netip.Addr, len(s))
	for i, a := range s {
		out[i] = netip.MustParseAddr(a)
	}
	return out
}

func run(t *testing.T, f *Fetch, in FetchInput) tool.Result {
	t.Helper()
	raw, _ := json.Marshal(in)
	res, err := f.Execute(context.Background(), raw)
	if err != nil {
		t.Fatalf("Execute returned a Go error: %v", err)
	}
	return res
}

const articleHTML = `<!doctype html><html><head><title>Gophers at Work</title>
<script>var secret = "do-not-leak";</script><style>body{color:red}</style></head>
<body><nav><a href="/home">Home</a> | <a href="/about">About</a></nav>
<article><h1>Gophers at Work</h1>
<p>The gopher is a small burrowing rodent. This paragraph is long enough for a readability extractor to treat the article as the main content of the page, which is what we want to check here.</p>
<p>Gophers dig tunnels with their claws and teeth. They store food in cheek pouches and carry it to underground chambers. See <a href="/docs/tunnels">the tunnel guide</a> for more.</p>
<h2>Diet</h2><ul><li>roots</li><li>tubers</li></ul>
<pre><code>go run ./cmd/gopher</code></pre>
</article><footer>© 2026 Example</footer></body></html>`

func TestFetchHTMLBecomesMarkdown(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, articleHTML)
	})
	f := NewFetch(WithAllowPrivate(true))
	res := run(t, f, FetchInput{URL: s.URL + "/gophers"})
	if res.IsError {
		t.Fatalf("error: %s", res.Output)
	}
	for _, want := range []string{"Gophers at Work", "burrowing rodent", "## Diet", "- roots",
		"[the tunnel guide](" + s.URL + "/docs/tunnels)", "go run ./cmd/gopher"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
	for _, bad := range []string{"do-not-leak", "color:red", "<p>", "<article>"} {
		if strings.Contains(res.Output, bad) {
			t.Errorf("output holds %q:\n%s", bad, res.Output)
		}
	}
	if ua := s.reqs[0].Header.Get("User-Agent"); !strings.Contains(ua, "harness9") {
		t.Errorf("User-Agent %q does not name harness9", ua)
	}
}

func TestFetchSmallPageKeepsBody(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><body><p>Tiny <b>page</b>.</p><a href="x">link</a></body></html>`)
	})
	res := run(t, NewFetch(WithAllowPrivate(true)), FetchInput{URL: s.URL})
	if res.IsError || !strings.Contains(res.Output, "Tiny **page**.") || !strings.Contains(res.Output, "[link](") {
		t.Fatalf("small page lost its body: %+v", res)
	}
}

func TestFetchTextTypesPassThrough(t *testing.T) {
	bodies := map[string]string{
		"application/json":          `{"a": [1, 2], "b": "<p>not html</p>"}`,
		"text/plain; charset=utf-8": "line one\n<b>literal</b>\n",
		"text/markdown":             "# Title\n\n* item\n",
		"application/atom+xml":      `<?xml version="1.0"?><feed><title>x</title></feed>`,
	}
	for ct, body := range bodies {
		s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			fmt.Fprint(w, body)
		})
		res := run(t, NewFetch(WithAllowPrivate(true)), FetchInput{URL: s.URL})
		if res.IsError || !strings.HasSuffix(res.Output, body) {
			t.Errorf("%s: not passed through: %+v", ct, res)
		}
	}
}

func TestFetchRefusesBinary(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"
	cases := map[string]struct{ ct, body string }{
		"image":              {"image/png", png},
		"pdf":                {"application/pdf", "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"},
		"octet-stream":       {"application/octet-stream", "hello"},
		"sniffed":            {"", png},
		"text that is bytes": {"text/plain", "abc\x00\x01\x02def"},
	}
	for name, c := range cases {
		s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Type"] = nil
			if c.ct != "" {
				w.Header().Set("Content-Type", c.ct)
			}
			fmt.Fprint(w, c.body)
		})
		res := run(t, NewFetch(WithAllowPrivate(true)), FetchInput{URL: s.URL})
		if !res.IsError || !strings.Contains(res.Output, "not text") {
			t.Errorf("%s: binary not refused: %+v", name, res)
		}
		if strings.Contains(res.Output, "PNG") || strings.Contains(res.Output, "PDF-") {
			t.Errorf("%s: the bytes reached the model: %q", name, res.Output)
		}
	}
}

func TestFetchSizeCapStopsReading(t *testing.T) {
	// The server would stream forever; the fetch must stop at the cap.
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := strings.Repeat("a", 1024) + "\n"
		for r.Context().Err() == nil {
			if _, err := fmt.Fprint(w, chunk); err != nil {
				return
			}
		}
	})
	res := run(t, NewFetch(WithAllowPrivate(true), WithMaxBytes(10_000), WithMaxOutput(100_000)), FetchInput{URL: s.URL})
	if res.IsError {
		t.Fatalf("error: %s", res.Output)
	}
	if n := strings.Count(res.Output, "a"); n > 10_000 {
		t.Errorf("%d bytes of body returned, cap is 10000", n)
	}
	if !strings.Contains(res.Output, "longer than 10000 bytes") {
		t.Errorf("the cut is not noted:\n%.300s", res.Output)
	}
}

func TestFetchOutputCapKeepsHead(t *testing.T) {
	body := "HEAD" + strings.Repeat("x", 5000) + "TAIL"
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, body)
	})
	res := run(t, NewFetch(WithAllowPrivate(true), WithMaxOutput(1000)), FetchInput{URL: s.URL})
	if !strings.Contains(res.Output, "HEAD") || strings.Contains(res.Output, "TAIL") ||
		!strings.Contains(res.Output, "4008 more characters cut") {
		t.Fatalf("output not capped as expected:\n%s", res.Output)
	}
}

func TestFetchTimeout(t *testing.T) {
	release := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	res := run(t, NewFetch(WithAllowPrivate(true), WithTimeout(300*time.Millisecond)), FetchInput{URL: s.URL})
	if !res.IsError || !strings.Contains(res.Output, "did not answer within 300ms") {
		t.Fatalf("a hanging server was not cut off: %+v", res)
	}
}

func TestFetchHTTPErrorIsToolError(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such page here", http.StatusNotFound)
	})
	res := run(t, NewFetch(WithAllowPrivate(true)), FetchInput{URL: s.URL + "/missing"})
	if !res.IsError || !strings.Contains(res.Output, "HTTP 404") || !strings.Contains(res.Output, "no such page here") {
		t.Fatalf("got %+v", res)
	}
}

func TestFetchRefusesBadURLs(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {})
	u, _ := url.Parse(s.URL)
	f := NewFetch(WithAllowPrivate(true))
	for _, raw := range []string{"", "not a url", "file:///etc/passwd", "ftp://" + u.Host + "/",
		"gopher://" + u.Host + "/", "http://user:pw@" + u.Host + "/", "/relative/path", "http:///nohost"} {
		res := run(t, f, FetchInput{URL: raw})
		if !res.IsError {
			t.Errorf("%q was fetched: %s", raw, res.Output)
		}
	}
	if n := s.hits.Load(); n != 0 {
		t.Errorf("the server saw %d requests", n)
	}
}

func TestFetchCache(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "visit")
	})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := NewFetch(WithAllowPrivate(true), WithClock(func() time.Time { return now }))
	run(t, f, FetchInput{URL: s.URL})
	now = now.Add(14 * time.Minute)
	run(t, f, FetchInput{URL: s.URL, Prompt: "again"})
	if n := s.hits.Load(); n != 1 {
		t.Fatalf("within 15 minutes the server saw %d requests, want 1", n)
	}
	now = now.Add(2 * time.Minute)
	run(t, f, FetchInput{URL: s.URL})
	if n := s.hits.Load(); n != 2 {
		t.Fatalf("after 16 minutes the server saw %d requests, want 2", n)
	}
}

func TestCacheIsBounded(t *testing.T) {
	now := time.Unix(0, 0)
	c := newCache(time.Hour, 3, func() time.Time { return now })
	for i := range 10 {
		now = now.Add(time.Second)
		c.put(fmt.Sprint(i), page{text: fmt.Sprint(i)})
	}
	if len(c.entries) != 3 {
		t.Fatalf("%d entries, bound is 3", len(c.entries))
	}
	if _, ok := c.get("9"); !ok {
		t.Fatal("the newest entry was evicted")
	}
	if _, ok := c.get("0"); ok {
		t.Fatal("the oldest entry was kept")
	}
}

func TestFetchPromptSummarisesLongPages(t *testing.T) {
	long := strings.Repeat("The answer is 42. ", 1000)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		if r.URL.Path == "/short" {
			fmt.Fprint(w, "short page")
			return
		}
		fmt.Fprint(w, long)
	})
	var gotPrompt, gotPage string
	calls := 0
	sum := SummarizerFunc(func(_ context.Context, prompt, page string) (string, error) {
		calls++
		gotPrompt, gotPage = prompt, page
		return "It is 42.", nil
	})
	f := NewFetch(WithAllowPrivate(true), WithSummarizer(sum), WithSummaryThreshold(1000))
	res := run(t, f, FetchInput{URL: s.URL + "/long", Prompt: "what is the answer?"})
	if res.IsError || !strings.Contains(res.Output, "Summary of the page") || !strings.Contains(res.Output, "It is 42.") {
		t.Fatalf("no labelled summary: %+v", res)
	}
	if gotPrompt != "what is the answer?" || !strings.Contains(gotPage, "The answer is 42.") {
		t.Fatalf("summariser got prompt %q and a page of %d bytes", gotPrompt, len(gotPage))
	}
	res = run(t, f, FetchInput{URL: s.URL + "/short", Prompt: "what is the answer?"})
	if calls != 1 || !strings.HasSuffix(res.Output, "short page") {
		t.Fatalf("a short page was summarised (%d calls): %s", calls, res.Output)
	}
}

func TestFetchScopeAndProperties(t *testing.T) {
	f := NewFetch()
	var _ tool.Scoped = f
	if !f.ReadOnly() {
		t.Fatal("web_fetch must be read-only")
	}
	if got := f.Scope(json.RawMessage(`{"url":"https://go.dev/x"}`)).URL; got != "https://go.dev/x" {
		t.Fatalf("scope URL %q", got)
	}
}

func TestFetchDecodesLegacyCharsets(t *testing.T) {
	// "Café crème" in ISO-8859-1, repeated: many bytes that are not UTF-8.
	latin1 := strings.Repeat("Caf\xe9 cr\xe8me. ", 50)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
		fmt.Fprintf(w, "<html><body><p>%s</p></body></html>", latin1)
	})
	res := run(t, NewFetch(WithAllowPrivate(true)), FetchInput{URL: s.URL})
	if res.IsError || !strings.Contains(res.Output, "Café crème.") {
		t.Fatalf("latin-1 page: %+v", res)
	}
}
