package mcptool

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// An authorization server whose authorization endpoint is not a web page
// (file://, javascript:) gets nothing opened: no browser is started and
// nothing is stored.
func TestLoginOpensOnlyWebPages(t *testing.T) {
	for _, endpoint := range []string{"file:///etc/passwd", "javascript:alert(1)//", "data:text/html,hi"} {
		as := newFakeAS(t)
		// The metadata names the hostile endpoint.
		as.srv.Config.Handler = rewriteMeta(as.srv.Config.Handler, endpoint)
		u := protectedServer(t, as)
		store := NewFileTokenStore(t.TempDir())
		opened := 0
		_, err := Login(context.Background(), "prot", ServerConfig{URL: u}, LoginOptions{Store: store, Timeout: 20 * time.Second,
			OpenURL: func(string) error { opened++; return nil }})
		if err == nil || opened != 0 {
			t.Errorf("%s: login error %v, browser opened %d times", endpoint, err, opened)
		}
		if c, _ := store.Load(u); c != nil {
			t.Errorf("%s: credentials stored", endpoint)
		}
	}
}

// rewriteMeta serves authorization server metadata whose authorization
// endpoint is endpoint.
func rewriteMeta(next http.Handler, endpoint string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/oauth-authorization-server" {
			next.ServeHTTP(w, r)
			return
		}
		u := "http://" + r.Host
		writeJSON(w, 200, map[string]any{"issuer": u, "authorization_endpoint": endpoint, "token_endpoint": u + "/token",
			"registration_endpoint": u + "/register", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}})
	})
}
