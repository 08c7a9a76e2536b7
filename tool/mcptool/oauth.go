package mcptool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// ErrLoginRequired says an HTTP server wants an OAuth login that no stored
// token satisfies: it has never been done, or the token expired and could
// not be refreshed. Login does it.
var ErrLoginRequired = errors.New("needs an OAuth login")

// RefreshBefore is how long before its expiry an access token is
// refreshed, so that a request never goes out with a token about to lapse.
const RefreshBefore = 2 * time.Minute

// WithTokenStore turns on OAuth for HTTP servers that are not given an
// Authorization header: their stored tokens are sent (and refreshed
// before they expire, the new ones saved); a server that answers 401
// without a usable token is reported with NeedsLogin instead of asking the
// user in the middle of a session. Login fills the store.
func WithTokenStore(s TokenStore) Option { return func(o *options) { o.tokens = s } }

// hasAuthorization reports whether the configured headers carry the
// user's own credentials.
func hasAuthorization(headers map[string]string) bool {
	for k := range headers {
		if strings.EqualFold(k, "Authorization") {
			return true
		}
	}
	return false
}

// sessionAuth is the OAuth handler of a server's session: it sends the
// stored token and reports a 401 as ErrLoginRequired.
type sessionAuth struct {
	s   *server
	src *storedSource // nil: nothing stored
}

func newSessionAuth(s *server, cfg ServerConfig, store TokenStore) *sessionAuth {
	a := &sessionAuth{s: s}
	if c, err := store.Load(cfg.URL); err == nil && c != nil {
		a.src = &storedSource{creds: c, store: store, client: oauthHTTPClient(cfg.URL), now: time.Now}
	}
	return a
}

func (a *sessionAuth) TokenSource(context.Context) (oauth2.TokenSource, error) {
	if a.src == nil {
		return nil, nil
	}
	return a.src, nil
}

// Authorize is called on a 401 or 403. A 403 that does not ask for more
// scope is the server's answer to the request and is retried once as the
// SDK expects; anything else needs the user to log in.
func (a *sessionAuth) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	if resp.StatusCode == http.StatusForbidden && !strings.Contains(resp.Header.Get("WWW-Authenticate"), "insufficient_scope") {
		return nil
	}
	a.s.needsLogin.Store(true)
	return ErrLoginRequired
}

// storedSource hands out the stored access token, refreshing it (and
// saving the new one) RefreshBefore its expiry.
type storedSource struct {
	mu     sync.Mutex
	creds  *Credentials
	store  TokenStore
	client *http.Client
	now    func() time.Time
}

func (s *storedSource) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if s.creds.usable(now.Add(RefreshBefore)) {
		return s.creds.token(), nil
	}
	// Another harness9 may have refreshed it meanwhile, and a server that
	// rotates refresh tokens has then made ours useless.
	if c, err := s.store.Load(s.creds.URL); err == nil && c != nil && c.AccessToken != s.creds.AccessToken {
		s.creds = c
		if c.usable(now.Add(RefreshBefore)) {
			return c.token(), nil
		}
	}
	if s.creds.RefreshToken == "" {
		if s.creds.usable(now) {
			return s.creds.token(), nil
		}
		return nil, &oauth2.RetrieveError{ErrorCode: "invalid_grant", ErrorDescription: "the token expired and there is no refresh token"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), refreshTimeout)
	defer cancel()
	next, err := refresh(ctx, s.client, s.creds)
	if err != nil {
		if s.creds.usable(now) {
			return s.creds.token(), nil // try again on the next request
		}
		return nil, err
	}
	if err := s.store.Save(next); err != nil {
		return nil, err
	}
	s.creds = next
	return next.token(), nil
}

// refreshTimeout bounds one refresh request.
const refreshTimeout = 30 * time.Second

// refresh exchanges c's refresh token for new tokens at the token
// endpoint, with the resource indicator the MCP authorization spec asks
// for on every token request.
func refresh(ctx context.Context, client *http.Client, c *Credentials) (*Credentials, error) {
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {c.RefreshToken}}
	if c.Resource != "" {
		form.Set("resource", c.Resource)
	}
	basic := c.ClientSecret != "" && oauth2.AuthStyle(c.AuthStyle) != oauth2.AuthStyleInParams
	if !basic {
		form.Set("client_id", c.ClientID)
		if c.ClientSecret != "" {
			form.Set("client_secret", c.ClientSecret)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.TokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic {
		req.SetBasicAuth(url.QueryEscape(c.ClientID), url.QueryEscape(c.ClientSecret))
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("refreshing the OAuth token: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if err != nil {
		return nil, fmt.Errorf("refreshing the OAuth token: %w", err)
	}
	var tr struct {
		AccessToken  string          `json:"access_token"`
		TokenType    string          `json:"token_type"`
		RefreshToken string          `json:"refresh_token"`
		ExpiresIn    json.RawMessage `json:"expires_in"`
		Error        string          `json:"error"`
		Description  string          `json:"error_description"`
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "application/json" || json.Valid(body) {
		_ = json.Unmarshal(body, &tr)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 || tr.AccessToken == "" {
		code := tr.Error
		if code == "" {
			code = "http_" + strconv.Itoa(resp.StatusCode)
		}
		// The body is the server's and may be anything: only its error
		// code and description are kept.
		return nil, &oauth2.RetrieveError{Response: resp, ErrorCode: code, ErrorDescription: oneLine(tr.Description, 300)}
	}
	next := *c
	next.AccessToken, next.TokenType = tr.AccessToken, tr.TokenType
	if tr.RefreshToken != "" {
		next.RefreshToken = tr.RefreshToken // rotated
	}
	next.Expiry = time.Time{}
	if secs, err := strconv.ParseFloat(strings.Trim(string(tr.ExpiresIn), `"`), 64); err == nil && secs > 0 {
		next.Expiry = time.Now().Add(time.Duration(secs * float64(time.Second)))
	}
	return &next, nil
}

// oauthHTTPClient is the client of a server's OAuth requests (discovery,
// registration, token endpoint). Metadata comes from the server, so the
// SDK's guard against requests into private networks stays on, unless
// the server the user configured is itself on a private network.
func oauthHTTPClient(serverURL string) *http.Client {
	base := http.DefaultTransport.(*http.Transport).Clone()
	c := &http.Client{Timeout: refreshTimeout}
	if privateHost(serverURL) {
		// Not an *http.Transport: the SDK then leaves dialing to it.
		c.Transport = plainTransport{base}
		return c
	}
	c.Transport = base
	return c
}

type plainTransport struct{ base http.RoundTripper }

func (p plainTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return p.base.RoundTrip(r)
}

// privateHost reports whether rawURL's host is an address of a private
// network (RFC 1918, ULA, link-local) or a name that is not a public DNS
// name (no dot).
func privateHost(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.Unmap()
		return ip.IsPrivate() || ip.IsLinkLocalUnicast()
	}
	return host != "localhost" && !strings.Contains(host, ".") && net.ParseIP(host) == nil
}
