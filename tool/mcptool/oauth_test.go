package mcptool

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeAS is an OAuth authorization server that does what the MCP
// authorization spec asks of one: metadata, dynamic client registration,
// the authorization endpoint (which approves at once, as a user would),
// and a token endpoint that checks PKCE and the resource indicator,
// refreshes and rotates tokens, and forgets the tokens it replaced.
type fakeAS struct {
	srv     *httptest.Server
	mu      sync.Mutex
	clients map[string][]string // client id → redirect URIs
	codes   map[string]codeGrant
	access  map[string]bool // live access tokens
	refresh map[string]bool // live refresh tokens
	n       int
	life    int // seconds an access token lives
	// what the token endpoint saw
	grants    []string
	resources []string
}

type codeGrant struct {
	client, challenge, redirect, resource string
}

func newFakeAS(t *testing.T) *fakeAS {
	as := &fakeAS{clients: map[string][]string{}, codes: map[string]codeGrant{}, access: map[string]bool{}, refresh: map[string]bool{}, life: 3600}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		u := as.srv.URL
		writeJSON(w, 200, map[string]any{"issuer": u, "authorization_endpoint": u + "/authorize", "token_endpoint": u + "/token",
			"registration_endpoint": u + "/register", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}, "grant_types_supported": []string{"authorization_code", "refresh_token"},
			"token_endpoint_auth_methods_supported": []string{"none"}, "scopes_supported": []string{"tools", "offline_access"}})
	})
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		var meta struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		_ = json.NewDecoder(r.Body).Decode(&meta)
		as.mu.Lock()
		as.n++
		id := fmt.Sprintf("client-%d", as.n)
		as.clients[id] = meta.RedirectURIs
		as.mu.Unlock()
		writeJSON(w, 201, map[string]any{"client_id": id, "redirect_uris": meta.RedirectURIs, "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		as.mu.Lock()
		defer as.mu.Unlock()
		redirects, ok := as.clients[q.Get("client_id")]
		if !ok || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || !contains(redirects, q.Get("redirect_uri")) {
			http.Error(w, "bad authorization request", 400)
			return
		}
		as.n++
		code := fmt.Sprintf("code-%d", as.n)
		as.codes[code] = codeGrant{client: q.Get("client_id"), challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri"), resource: q.Get("resource")}
		http.Redirect(w, r, q.Get("redirect_uri")+"?"+url.Values{"code": {code}, "state": {q.Get("state")}}.Encode(), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		as.mu.Lock()
		defer as.mu.Unlock()
		grant := r.PostForm.Get("grant_type")
		as.grants = append(as.grants, grant)
		as.resources = append(as.resources, r.PostForm.Get("resource"))
		switch grant {
		case "authorization_code":
			c, ok := as.codes[r.PostForm.Get("code")]
			delete(as.codes, r.PostForm.Get("code"))
			sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge || r.PostForm.Get("client_id") != c.client ||
				r.PostForm.Get("resource") != c.resource {
				writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
				return
			}
		case "refresh_token":
			old := r.PostForm.Get("refresh_token")
			if !as.refresh[old] {
				writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "unknown refresh token"})
				return
			}
			delete(as.refresh, old)
			for tok := range as.access {
				delete(as.access, tok) // the old access token dies with it
			}
		default:
			writeJSON(w, 400, map[string]string{"error": "unsupported_grant_type"})
			return
		}
		as.n++
		access, refresh := fmt.Sprintf("access-%d", as.n), fmt.Sprintf("refresh-%d", as.n)
		as.access[access], as.refresh[refresh] = true, true
		writeJSON(w, 200, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": as.life, "refresh_token": refresh})
	})
	as.srv = httptest.NewServer(mux)
	t.Cleanup(as.srv.Close)
	return as
}

func (as *fakeAS) live(token string) bool {
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.access[token]
}

func (as *fakeAS) seen() ([]string, []string) {
	as.mu.Lock()
	defer as.mu.Unlock()
	return append([]string(nil), as.grants...), append([]string(nil), as.resources...)
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// protectedServer is an MCP server behind bearer tokens of as, with a
// "whoami" tool that says which token it was called with.
func protectedServer(t *testing.T, as *fakeAS) (mcpURL string) {
	s := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "whoami", Description: "who is calling"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return textResult("token " + req.Extra.TokenInfo.UserID), nil, nil
	})
	mux := http.NewServeMux()
	var rs *httptest.Server
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		if !as.live(token) {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: token, Expiration: time.Now().Add(time.Hour)}, nil
	}
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"resource": rs.URL + "/mcp", "authorization_servers": []string{as.srv.URL}, "scopes_supported": []string{"tools"}})
	})
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: rs.URL + "/.well-known/oauth-protected-resource/mcp"})(handler).ServeHTTP(w, r)
	}))
	rs = httptest.NewServer(mux)
	t.Cleanup(rs.Close)
	return rs.URL + "/mcp"
}

// browse plays the user's browser: it opens the authorization page and
// follows the redirect back to the loopback address.
func browse(t *testing.T) func(string) error {
	return func(u string) error {
		go func() {
			resp, err := http.Get(u)
			if err != nil {
				t.Errorf("browser: %v", err)
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(body), "logged in") {
				t.Errorf("browser ended on %d %q", resp.StatusCode, body)
			}
		}()
		return nil
	}
}

// The whole login: a server that answers 401 needs a login; Login
// discovers the authorization server from the 401, registers, runs the
// code flow with PKCE through the "browser" and stores the tokens, owner
// only; the next connection sends them; a token about to expire is
// refreshed (with the resource indicator) and the new one saved and used.
func TestOAuthLoginAndRefresh(t *testing.T) {
	as := newFakeAS(t)
	u := protectedServer(t, as)
	dir := filepath.Join(t.TempDir(), "mcp-auth")
	store := NewFileTokenStore(dir)
	cfg := map[string]ServerConfig{"prot": {URL: u}}

	m, _ := Connect(context.Background(), cfg, WithTokenStore(store))
	st := m.Status()[0]
	m.Close()
	if st.Connected || !st.NeedsLogin || st.Err != ErrLoginRequired.Error() {
		t.Fatalf("before login: %+v", st)
	}

	var out strings.Builder
	creds, err := Login(context.Background(), "prot", cfg["prot"], LoginOptions{Store: store, Out: &out, OpenURL: browse(t)})
	if err != nil {
		t.Fatalf("login: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), as.srv.URL+"/authorize?") {
		t.Errorf("the authorization page was not shown: %q", out.String())
	}
	if creds.ClientID == "" || creds.RefreshToken == "" || creds.Resource != u || creds.TokenURL != as.srv.URL+"/token" {
		t.Errorf("credentials = %+v", creds)
	}
	fi, err := os.Stat(filepath.Join(dir, fileName(u)))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Errorf("token dir mode %v", di.Mode().Perm())
	}

	m = mustConnect(t, cfg, WithTokenStore(store))
	if res := run(t, toolsByName(m)["mcp__prot__whoami"], `{}`); res.Output != "token "+creds.AccessToken {
		t.Errorf("whoami = %+v, want the stored token", res)
	}
	m.Close()

	// The token is about to expire: the next request refreshes it first.
	c, _ := store.Load(u)
	c.Expiry = time.Now().Add(RefreshBefore / 2)
	if err := store.Save(c); err != nil {
		t.Fatal(err)
	}
	m = mustConnect(t, cfg, WithTokenStore(store))
	defer m.Close()
	fresh, _ := store.Load(u)
	if fresh.AccessToken == creds.AccessToken || fresh.RefreshToken == creds.RefreshToken || !fresh.Expiry.After(time.Now().Add(RefreshBefore)) {
		t.Fatalf("not refreshed: %+v", fresh)
	}
	if res := run(t, toolsByName(m)["mcp__prot__whoami"], `{}`); res.Output != "token "+fresh.AccessToken {
		t.Errorf("whoami after refresh = %+v", res)
	}
	if as.live(creds.AccessToken) {
		t.Error("the old token still works at the server; the test proves nothing")
	}
	grants, resources := as.seen()
	if got := strings.Join(grants, ","); got != "authorization_code,refresh_token" {
		t.Errorf("grants = %s", got)
	}
	if resources[1] != u {
		t.Errorf("refresh sent resource %q, want %q", resources[1], u)
	}
}

func mustConnect(t *testing.T, cfg map[string]ServerConfig, opts ...Option) *Manager {
	t.Helper()
	m, err := Connect(context.Background(), cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range m.Status() {
		if !st.Connected {
			m.Close()
			t.Fatalf("%s: %s", st.Name, st.Err)
		}
	}
	return m
}

// A refresh token the server no longer honours, once the access token has
// expired, means a new login; a token is only ever sent to the URL it was
// obtained for.
func TestOAuthExpiredAndForeignTokens(t *testing.T) {
	as := newFakeAS(t)
	u := protectedServer(t, as)
	store := NewFileTokenStore(t.TempDir())
	cfg := map[string]ServerConfig{"prot": {URL: u}}
	creds, err := Login(context.Background(), "prot", cfg["prot"], LoginOptions{Store: store, OpenURL: browse(t)})
	if err != nil {
		t.Fatal(err)
	}

	// Another server (another URL) configured with the same name gets no
	// token: it sees no Authorization header at all.
	var sawAuth []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawAuth = append(sawAuth, r.Header.Get("Authorization"))
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer other.Close()
	m, _ := Connect(context.Background(), map[string]ServerConfig{"prot": {URL: other.URL + "/mcp"}}, WithTokenStore(store))
	st := m.Status()[0]
	m.Close()
	if !st.NeedsLogin || len(sawAuth) == 0 || strings.Join(sawAuth, "") != "" {
		t.Errorf("foreign server: status %+v, Authorization headers %q", st, sawAuth)
	}

	// Expired, and the refresh token is refused.
	as.mu.Lock()
	as.refresh = map[string]bool{}
	as.mu.Unlock()
	creds.Expiry = time.Now().Add(-time.Minute)
	if err := store.Save(creds); err != nil {
		t.Fatal(err)
	}
	m, _ = Connect(context.Background(), cfg, WithTokenStore(store))
	st = m.Status()[0]
	m.Close()
	if st.Connected || !st.NeedsLogin {
		t.Errorf("expired token without a usable refresh: %+v", st)
	}

	// An Authorization header of the user's own turns OAuth off.
	m, _ = Connect(context.Background(), map[string]ServerConfig{"prot": {URL: u, Headers: map[string]string{"Authorization": "Bearer mine"}}}, WithTokenStore(store))
	st = m.Status()[0]
	m.Close()
	if st.NeedsLogin {
		t.Errorf("a server with the user's own Authorization header asks for a login: %+v", st)
	}

	if err := Logout(store, u); err != nil {
		t.Fatal(err)
	}
	if c, err := store.Load(u); c != nil || err != nil {
		t.Errorf("after logout: %+v, %v", c, err)
	}
}

// A login whose browser cannot reach the loopback address takes the
// address it ended on, pasted.
func TestOAuthLoginWithPastedRedirect(t *testing.T) {
	as := newFakeAS(t)
	u := protectedServer(t, as)
	store := NewFileTokenStore(t.TempDir())
	pr, pw := io.Pipe()
	defer pw.Close()
	open := func(authURL string) error {
		go func() {
			// The "browser" is elsewhere: it stops at the redirect.
			c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := c.Get(authURL)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			fmt.Fprintf(pw, "not a url\n%s\n", resp.Header.Get("Location"))
		}()
		return nil
	}
	if _, err := Login(context.Background(), "prot", ServerConfig{URL: u}, LoginOptions{Store: store, OpenURL: open, In: pr}); err != nil {
		t.Fatal(err)
	}
	if c, _ := store.Load(u); c == nil || !as.live(c.AccessToken) {
		t.Errorf("stored credentials %+v", c)
	}
}
