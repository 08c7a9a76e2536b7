package mcptool

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// OAuthConfig is what a server's OAuth login needs beyond discovery:
// a client registered with the authorization server in advance, for
// servers without dynamic client registration, and the loopback port it
// was registered with.
type OAuthConfig struct {
	ClientID     string `json:"clientId,omitempty" toml:"client_id,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty" toml:"-"`
	// CallbackPort is the port of the loopback redirect
	// (http://127.0.0.1:PORT/callback); 0 picks a free one, which works
	// with dynamic registration.
	CallbackPort int `json:"callbackPort,omitempty" toml:"callback_port,omitempty"`
	// Scopes replace the scopes the server advertises.
	Scopes []string `json:"scopes,omitempty" toml:"scopes,omitempty"`
}

// LoginOptions are the user's side of an OAuth login.
type LoginOptions struct {
	// Store receives the credentials.
	Store TokenStore
	// Out is told what to do: the address of the authorization page.
	Out io.Writer
	// OpenURL shows the page in the user's browser; nil, or an error,
	// leaves the user the printed address.
	OpenURL func(rawURL string) error
	// In, when set, is read for the address the browser was sent back to
	// (or only its code): a login on a machine whose browser cannot reach
	// this one's loopback address.
	In io.Reader
	// Timeout bounds the whole login (default 10 minutes).
	Timeout time.Duration
	// ClientName is the name registered with the authorization server.
	ClientName string
}

// Login runs the OAuth authorization of the HTTP server cfg names, as the
// MCP authorization spec has it: the server's 401 points to its protected
// resource metadata, that to the authorization server, whose metadata
// gives the endpoints; harness9 registers itself (dynamic client
// registration) unless cfg.OAuth names a client; the user approves in a
// browser (authorization code with PKCE, redirected to a loopback
// address, or the address pasted on In); the code is exchanged for
// tokens, which are saved in o.Store under cfg.URL. It returns the saved
// credentials, or nil and no error when the server asked for no login.
func Login(ctx context.Context, name string, cfg ServerConfig, o LoginOptions) (*Credentials, error) {
	if kind, err := cfg.transport(); err != nil || kind != TransportHTTP {
		return nil, fmt.Errorf("MCP server %s: only streamable HTTP servers (url) log in with OAuth", name)
	}
	if o.Store == nil {
		return nil, errors.New("mcptool.Login: no token store")
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.ClientName == "" {
		o.ClientName = "harness9"
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	oc := OAuthConfig{}
	if cfg.OAuth != nil {
		oc = *cfg.OAuth
	}
	cb, err := listenCallback(oc.CallbackPort)
	if err != nil {
		return nil, err
	}
	defer cb.close()

	client := oauthHTTPClient(cfg.URL)
	var mu sync.Mutex
	var got *Credentials
	hcfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:         cb.redirect,
		Client:              client,
		RequestRefreshToken: true,
		AuthorizationCodeFetcher: func(ctx context.Context, a *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			return cb.fetch(ctx, a.URL, o)
		},
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			mu.Lock()
			got = &Credentials{Server: name, URL: cfg.URL, Resource: cb.resource(), ClientID: c.ClientID, ClientSecret: c.ClientSecret,
				AuthURL: c.Endpoint.AuthURL, TokenURL: c.Endpoint.TokenURL, AuthStyle: int(c.Endpoint.AuthStyle), Scopes: c.Scopes,
				AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken, TokenType: tok.TokenType, Expiry: tok.Expiry}
			mu.Unlock()
			return oauth2.StaticTokenSource(tok), nil
		},
	}
	if oc.ClientID != "" {
		pre := &oauthex.ClientCredentials{ClientID: oc.ClientID}
		if oc.ClientSecret != "" {
			pre.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: oc.ClientSecret}
		}
		hcfg.PreregisteredClient = pre
	} else {
		hcfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{cb.redirect}, ClientName: o.ClientName, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}}
	}
	if len(oc.Scopes) > 0 {
		hcfg.ScopeFilter = func([]string) []string { return oc.Scopes }
	}
	handler, err := auth.NewAuthorizationCodeHandler(hcfg)
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: %w", name, err)
	}
	t := &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: httpClient(cfg.Headers), OAuthHandler: handler,
		MaxEventSize: maxMessage, DisableStandaloneSSE: true}
	session, err := mcp.NewClient(&mcp.Implementation{Name: o.ClientName}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}).Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: login failed: %w", name, loginCause(ctx, err))
	}
	_ = session.Close()
	mu.Lock()
	defer mu.Unlock()
	if got == nil {
		return nil, nil
	}
	if err := o.Store.Save(got); err != nil {
		return nil, err
	}
	return got, nil
}

// loginCause is the error to report for a failed login: the deadline
// when it passed.
func loginCause(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return errors.New("no answer from the browser in time")
	}
	return err
}

// Logout forgets url's stored credentials.
func Logout(store TokenStore, url string) error { return store.Delete(url) }

// callback is the loopback address the authorization server sends the
// browser back to.
type callback struct {
	ln       net.Listener
	srv      *http.Server
	redirect string
	results  chan url.Values

	mu      sync.Mutex
	authURL string // the authorization page's address, once known
}

func listenCallback(port int) (*callback, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("cannot listen for the OAuth redirect on 127.0.0.1:%d: %w", port, err)
	}
	c := &callback{ln: ln, results: make(chan url.Values, 1),
		redirect: fmt.Sprintf("http://127.0.0.1:%d/callback", ln.Addr().(*net.TCPAddr).Port)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", c.serve)
	c.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = c.srv.Serve(ln) }()
	return c, nil
}

func (c *callback) close() { _ = c.srv.Close() }

// serve takes the browser's redirect: the code and state (or the
// authorization server's error) go to fetch, the browser gets a page
// saying what happened.
func (c *callback) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	msg := "harness9 is logged in. You can close this tab."
	if e := q.Get("error"); e != "" {
		msg = "The login failed: " + e + ". You can close this tab."
	} else if q.Get("code") == "" {
		http.Error(w, "no authorization code in this request", http.StatusBadRequest)
		return
	}
	select {
	case c.results <- q:
	default: // a second redirect: the first one is being used
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!doctype html><title>harness9</title><p>%s</p>\n", html.EscapeString(msg))
}

// resource is the resource indicator the authorization page was asked for.
func (c *callback) resource() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	u, err := url.Parse(c.authURL)
	if err != nil {
		return ""
	}
	return u.Query().Get("resource")
}

// fetch shows the user the authorization page and waits for the browser's
// redirect, or for the redirect address pasted on o.In.
func (c *callback) fetch(ctx context.Context, authURL string, o LoginOptions) (*auth.AuthorizationResult, error) {
	u, err := url.Parse(authURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("the authorization server gave an address that is not a web page: %q", authURL)
	}
	c.mu.Lock()
	c.authURL = authURL
	c.mu.Unlock()
	state := u.Query().Get("state")
	if o.Out != nil {
		fmt.Fprintf(o.Out, "Open this page to log in (it is sent back to %s):\n\n  %s\n\n", c.redirect, authURL)
	}
	if o.OpenURL != nil {
		if err := o.OpenURL(authURL); err != nil && o.Out != nil {
			fmt.Fprintf(o.Out, "(could not open a browser: %v)\n", err)
		}
	}
	pasted := make(chan url.Values, 1)
	if o.In != nil {
		if o.Out != nil {
			fmt.Fprintf(o.Out, "If the browser cannot reach this machine, paste the address it ends on (or its code) here.\n")
		}
		go readPasted(o.In, state, pasted)
	}
	var q url.Values
	select {
	case q = <-c.results:
	case q = <-pasted:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if e := q.Get("error"); e != "" {
		if d := q.Get("error_description"); d != "" {
			e += ": " + oneLine(d, 300)
		}
		return nil, fmt.Errorf("the authorization server refused: %s", e)
	}
	return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
}

// readPasted reads lines until one holds a redirect address or a bare
// code (which gets the state of the page the user was sent to).
func readPasted(in io.Reader, state string, out chan<- url.Values) {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if u, err := url.Parse(line); err == nil && u.Scheme != "" {
			if q := u.Query(); q.Get("code") != "" || q.Get("error") != "" {
				out <- q
				return
			}
			continue
		}
		if !strings.ContainsAny(line, " \t") {
			out <- url.Values{"code": {line}, "state": {state}}
			return
		}
	}
}
