package web

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/harness9/harness9/tool"
)

//go:embed web_fetch.md
var fetchDescription string

// Defaults of web_fetch; the CLI's config refers to these.
const (
	DefaultTimeout          = 30 * time.Second
	DefaultMaxBytes         = 5 << 20 // bytes read from one response
	DefaultMaxOutput        = 30_000  // characters of text returned to the model
	DefaultSummaryThreshold = 8_000   // characters above which a prompt triggers a summary
	DefaultCacheTTL         = 15 * time.Minute
	DefaultCacheEntries     = 64
	maxRedirects            = 10
	// FetchName is the name web_fetch is called by (permission rules
	// name it: web_fetch(domain:go.dev)).
	FetchName = "web_fetch"
	userAgent = "harness9-web-fetch/1 (+https://github.com/harness9/harness9)"
)

// FetchInput is the input of web_fetch.
type FetchInput struct {
	URL    string `json:"url" jsonschema:"the http or https URL to fetch"`
	Prompt string `json:"prompt,omitempty" jsonschema:"what you want to know from the page; a long page is then summarised with this question instead of returned whole"`
}

// Fetch is the web_fetch tool. It is read-only: it changes nothing, so it
// runs in Plan Mode too, subject to permission rules on its URL's domain.
type Fetch struct {
	tool.Spec
	o      options
	client *http.Client
	cache  *cache
}

type options struct {
	timeout          time.Duration
	maxBytes         int64
	maxOutput        int
	summaryThreshold int
	cacheTTL         time.Duration
	cacheEntries     int
	now              func() time.Time
	summarizer       Summarizer
	guard            guard
	userAgent        string
}

// Option configures web_fetch.
type Option func(*options)

// WithTimeout bounds each fetch: connecting, redirects and reading the body.
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithMaxBytes caps how many bytes of a response are read; the rest is
// never downloaded and the page is marked as cut.
func WithMaxBytes(n int64) Option { return func(o *options) { o.maxBytes = n } }

// WithMaxOutput caps the characters of text returned to the model; the
// head is kept with a note of how much was cut.
func WithMaxOutput(n int) Option { return func(o *options) { o.maxOutput = n } }

// WithSummarizer lets a call with a prompt have a long page summarised.
// Without one, the prompt is ignored and the page returned.
func WithSummarizer(s Summarizer) Option { return func(o *options) { o.summarizer = s } }

// WithSummaryThreshold sets the page length, in characters, above which a
// call with a prompt is answered with a summary.
func WithSummaryThreshold(n int) Option { return func(o *options) { o.summaryThreshold = n } }

// WithCacheTTL sets how long a fetched page is reused (0 disables the cache).
func WithCacheTTL(d time.Duration) Option { return func(o *options) { o.cacheTTL = d } }

// WithClock replaces time.Now for the cache.
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithAllowPrivate lets web_fetch reach loopback, private and link-local
// addresses (a local docs server, an intranet). Off by default: a model
// told by a page to fetch http://169.254.169.254/ must not reach the
// cloud's metadata service.
func WithAllowPrivate(allow bool) Option { return func(o *options) { o.guard.allowAll = allow } }

// WithPrivateHosts lifts the private-address refusal for the host names
// allow reports true for (host is lower-case, without a trailing dot). The
// CLI passes the user's allow rules web_fetch(domain:…).
func WithPrivateHosts(allow func(host string) bool) Option {
	return func(o *options) { o.guard.allowHost = allow }
}

// WithAllowedAddrs lets exactly these address:port pairs through although
// they are private. Tests use it to let a loopback server play a public
// host while every other private address stays refused.
func WithAllowedAddrs(addrs ...netip.AddrPort) Option {
	return func(o *options) {
		for _, a := range addrs {
			o.guard.allowAddr[a] = true
		}
	}
}

// WithResolver replaces the system's DNS resolver.
func WithResolver(r Resolver) Option { return func(o *options) { o.guard.resolver = r } }

// WithUserAgent replaces the User-Agent header (it should still name
// harness9, so site owners know what is calling).
func WithUserAgent(ua string) Option { return func(o *options) { o.userAgent = ua } }

// NewFetch returns the web_fetch tool.
func NewFetch(opts ...Option) *Fetch {
	o := options{
		timeout: DefaultTimeout, maxBytes: DefaultMaxBytes, maxOutput: DefaultMaxOutput,
		summaryThreshold: DefaultSummaryThreshold, cacheTTL: DefaultCacheTTL,
		cacheEntries: DefaultCacheEntries, now: time.Now, userAgent: userAgent,
		guard: guard{resolver: net.DefaultResolver, allowAddr: map[netip.AddrPort]bool{}},
	}
	for _, opt := range opts {
		opt(&o)
	}
	o.guard.dialer = net.Dialer{Timeout: o.timeout}
	f := &Fetch{Spec: tool.NewSpec[FetchInput](FetchName, fetchDescription), o: o,
		cache: newCache(o.cacheTTL, o.cacheEntries, o.now)}
	f.client = &http.Client{
		Transport: &http.Transport{
			// No Proxy: a proxy from the environment would make the
			// connection, bypassing the address check in the dialer.
			Proxy:                 nil,
			DialContext:           f.o.guard.DialContext,
			ForceAttemptHTTP2:     true,
			TLSHandshakeTimeout:   o.timeout,
			ResponseHeaderTimeout: o.timeout,
			MaxIdleConns:          4,
			IdleConnTimeout:       30 * time.Second,
		},
		// No Jar: cookies are never stored or sent.
		CheckRedirect: checkRedirect,
		Timeout:       o.timeout,
	}
	return f
}

// checkRedirect follows at most maxRedirects redirects, to http and https
// URLs without credentials. Every hop's connection passes the guard.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if err := checkURL(req.URL); err != nil {
		return fmt.Errorf("refused a redirect to %s: %w", req.URL.Redacted(), err)
	}
	// Go drops Authorization and Cookie on a redirect to another host;
	// this tool never sets them, and drops them on every hop anyway.
	req.Header.Del("Authorization")
	req.Header.Del("Cookie")
	return nil
}

// checkURL accepts only http(s) URLs with a host and no user:password.
func checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("only http and https URLs are fetched, not %q", u.Scheme)
	}
	if u.Host == "" {
		return errors.New("the URL has no host")
	}
	if u.User != nil {
		return errors.New("URLs with a user name or password are not fetched")
	}
	return nil
}

// ReadOnly implements tool.ReadOnly.
func (*Fetch) ReadOnly() bool { return true }

// Kind implements tool.Kinded.
func (*Fetch) Kind() tool.Kind { return tool.KindFetch }

// Scope implements tool.Scoped: rules like web_fetch(domain:go.dev) match
// on the URL.
func (*Fetch) Scope(input json.RawMessage) tool.Scope {
	in, _ := tool.Decode[FetchInput](input)
	return tool.Scope{URL: in.URL}
}

// Execute implements tool.Tool.
func (f *Fetch) Execute(ctx context.Context, input json.RawMessage) (tool.Result, error) {
	return tool.Run(ctx, f.Name(), input, f.fetch)
}

func (f *Fetch) fetch(ctx context.Context, in FetchInput) (tool.Result, error) {
	raw := strings.TrimSpace(in.URL)
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return tool.Errorf("web_fetch: %q is not a URL; give an absolute http(s) URL such as https://go.dev/doc/", in.URL), nil
	}
	if err := checkURL(u); err != nil {
		return tool.Errorf("web_fetch: %v", err), nil
	}
	key := u.String()
	p, cached := f.cache.get(key)
	if !cached {
		p, err = f.download(ctx, u)
		if err != nil {
			if ctx.Err() != nil {
				return tool.Result{}, ctx.Err()
			}
			return tool.Errorf("web_fetch: %s", f.explain(err)), nil
		}
		if p.errText != "" {
			return tool.Errorf("web_fetch: %s", p.errText), nil
		}
		f.cache.put(key, p)
	}
	return f.answer(ctx, in, p), nil
}

// page is a fetched, converted response.
type page struct {
	url     string // the final URL, after redirects
	status  int
	text    string
	cut     bool   // the body was longer than maxBytes
	errText string // a refusal worded for the model (binary, HTTP error)
}

func (f *Fetch) download(ctx context.Context, u *url.URL) (page, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return page{}, err
	}
	req.Header.Set("User-Agent", f.o.userAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/markdown,text/plain,application/json;q=0.9,*/*;q=0.5")
	resp, err := f.client.Do(req)
	if err != nil {
		return page{}, err
	}
	defer resp.Body.Close()
	final := resp.Request.URL
	p := page{url: final.String(), status: resp.StatusCode}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.o.maxBytes+1))
	if err != nil {
		return page{}, err
	}
	if int64(len(body)) > f.o.maxBytes {
		body, p.cut = body[:f.o.maxBytes], true
	}
	ct := resp.Header.Get("Content-Type")
	k, mt := classifyType(ct, body)
	if k == kindRefused || looksBinary(body) {
		if mt == "" {
			mt = "binary data"
		}
		p.errText = fmt.Sprintf("%s is %s, which is not text; web_fetch reads HTML and text pages only", p.url, mt)
		return p, nil
	}
	body = toUTF8(body, ct)
	if k == kindHTML {
		if p.text, err = htmlToMarkdown(body, final); err != nil {
			p.errText = fmt.Sprintf("%s: %v", p.url, err)
			return p, nil
		}
	} else {
		p.text = string(body)
	}
	if resp.StatusCode >= 400 {
		p.errText = fmt.Sprintf("%s answered HTTP %d %s:\n\n%s", p.url, resp.StatusCode,
			http.StatusText(resp.StatusCode), headOf(p.text, 2000))
	}
	return p, nil
}

// explain words a failed request for the model, naming how the user can
// allow what the guard refused.
func (f *Fetch) explain(err error) string {
	var blocked *BlockedError
	if errors.As(err, &blocked) {
		host := strings.TrimSuffix(strings.ToLower(blocked.Host), ".")
		return fmt.Sprintf("refused: %s. Loopback, private, link-local and other non-public addresses are not fetched; "+
			"the user can allow them with `[web] allow_private = true` in config.toml or the allow rule web_fetch(domain:%s)",
			blocked, host)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		if uerr.Timeout() {
			return fmt.Sprintf("%s did not answer within %s", uerr.URL, f.o.timeout)
		}
		return fmt.Sprintf("%s: %v", uerr.URL, uerr.Err)
	}
	return err.Error()
}

// answer builds the result: the page, or with a prompt and a long page, a
// summary of it.
func (f *Fetch) answer(ctx context.Context, in FetchInput, p page) tool.Result {
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\n", p.url)
	if p.cut {
		fmt.Fprintf(&b, "(the page is longer than %d bytes; only its start was downloaded)\n", f.o.maxBytes)
	}
	prompt := strings.TrimSpace(in.Prompt)
	if prompt != "" && f.o.summarizer != nil && len(p.text) > f.o.summaryThreshold {
		sum, err := f.o.summarizer.Summarize(ctx, prompt, headOf(p.text, 4*f.o.maxOutput))
		if err == nil && strings.TrimSpace(sum) != "" {
			fmt.Fprintf(&b, "Summary of the page (%d characters) for the prompt %q, written by the model:\n\n%s", len(p.text), prompt, strings.TrimSpace(sum))
			return tool.Text(b.String())
		}
		// A failed summary still leaves the page itself useful.
		if err == nil {
			err = errors.New("the model returned no text")
		}
		fmt.Fprintf(&b, "(the page could not be summarised: %v; here it is instead)\n", err)
	}
	b.WriteString("\n")
	text := p.text
	if len(text) > f.o.maxOutput {
		cut := len(text) - len(headOf(text, f.o.maxOutput))
		text = headOf(text, f.o.maxOutput) + fmt.Sprintf("\n\n[… %d more characters cut; call again with a prompt to get an answer drawn from the whole page]", cut)
	}
	b.WriteString(text)
	return tool.Text(b.String())
}

// headOf returns at most n bytes of s, cut at a rune boundary.
func headOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n]
}
