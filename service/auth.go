package service

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// Token is one bearer token the server accepts. Only its SHA-256 is kept:
// a leaked config file gives nobody a token.
type Token struct {
	Name string
	// SHA256 is the lower-case hex SHA-256 of the token (HashToken).
	SHA256 string
	// Roots are the directories this token's sessions may work in; each
	// must lie inside one of the server's roots.
	Roots []string
}

// cookieName holds the token of a browser that logged in to the web page.
const cookieName = "harness9_token"

// HashToken returns the hex SHA-256 of a token, the form config stores.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// NewToken returns a fresh random token (256 bits).
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("cannot make a token: %w", err)
	}
	return "h9_" + base64.RawURLEncoding.EncodeToString(b), nil
}

// principal is an authenticated caller.
type principal struct {
	name   string
	roots  []string // resolved
	token  string   // the token itself, for the CSRF value of a cookie login
	cookie bool     // authenticated by the login cookie, not a header
}

// authToken is a configured token, roots resolved.
type authToken struct {
	name  string
	sum   []byte
	roots []string
}

// resolveDir makes dir absolute with symbolic links evaluated, so root
// checks compare what the kernel will open.
func resolveDir(dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("%q is not an absolute path", dir)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	return real, nil
}

// within reports whether dir is root or lies beneath it (both resolved).
func within(dir, root string) bool {
	if dir == root {
		return true
	}
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func withinAny(dir string, roots []string) bool {
	for _, r := range roots {
		if within(dir, r) {
			return true
		}
	}
	return false
}

// prepareTokens checks the configured tokens against the server's roots.
func prepareTokens(tokens []Token, roots []string) ([]authToken, error) {
	var out []authToken
	for _, t := range tokens {
		sum, err := hex.DecodeString(t.SHA256)
		if err != nil || len(sum) != sha256.Size {
			return nil, fmt.Errorf("token %q: sha256 must be 64 hex digits (add tokens with `harness9 serve token add NAME --root DIR`)", t.Name)
		}
		if len(t.Roots) == 0 {
			return nil, fmt.Errorf("token %q has no roots; give it the directories it may use (roots = [\"/path\"])", t.Name)
		}
		at := authToken{name: t.Name, sum: sum}
		for _, r := range t.Roots {
			real, err := resolveDir(r)
			if err != nil {
				return nil, fmt.Errorf("token %q: root %s: %w", t.Name, r, err)
			}
			if !withinAny(real, roots) {
				return nil, fmt.Errorf("token %q: root %s is not inside the server's roots (%s); add it to [serve] roots", t.Name, r, strings.Join(roots, ", "))
			}
			at.roots = append(at.roots, real)
		}
		out = append(out, at)
	}
	return out, nil
}

var errNoToken = errors.New("authentication required: send Authorization: Bearer TOKEN (create one with `harness9 serve token add NAME --root DIR`)")

// authenticate finds the caller's token: the Authorization header, else
// the web page's login cookie. Every configured hash is compared, in
// constant time, whatever matches first.
func (s *Server) authenticate(r *http.Request) (*principal, error) {
	tok, cookie := "", false
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, v, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(v) == "" {
			return nil, errors.New("the Authorization header must be \"Bearer TOKEN\"")
		}
		tok = strings.TrimSpace(v)
	} else if c, err := r.Cookie(cookieName); err == nil && c.Value != "" {
		tok, cookie = c.Value, true
	}
	if tok == "" {
		return nil, errNoToken
	}
	sum := sha256.Sum256([]byte(tok))
	var found *authToken
	for i := range s.tokens {
		if subtle.ConstantTimeCompare(sum[:], s.tokens[i].sum) == 1 && found == nil {
			found = &s.tokens[i]
		}
	}
	if found == nil {
		return nil, errors.New("the token is not valid (it is not one of the tokens in [[serve.tokens]])")
	}
	return &principal{name: found.name, roots: found.roots, token: tok, cookie: cookie}, nil
}

// csrfValue is what a page logged in with token must send in X-CSRF-Token
// with every change: derived from the token, so a site that cannot read
// the cookie cannot compute it.
func csrfValue(token string) string {
	sum := sha256.Sum256([]byte("harness9-csrf\x00" + token))
	return hex.EncodeToString(sum[:16])
}

// checkCSRF refuses a state-changing request made with the login cookie
// unless it carries the page's CSRF value. Requests with a bearer header
// are not sent by a browser on another site's behalf.
func checkCSRF(p *principal, r *http.Request) error {
	if !p.cookie {
		return nil
	}
	got := r.Header.Get("X-CSRF-Token")
	if subtle.ConstantTimeCompare([]byte(got), []byte(csrfValue(p.token))) != 1 {
		return errors.New("missing or wrong X-CSRF-Token header; reload the page")
	}
	return nil
}

// allows reports whether the caller may use a session in dir, a resolved
// path: the workdir a session was created with (resolved then) or one a
// request names (resolved by resolveDir). It is compared as it is, never
// resolved again: a session belongs to the root it was created in, and a
// workdir replaced later by a link into another token's root must not hand
// the session to that token.
func (p *principal) allows(dir string) bool {
	return filepath.IsAbs(dir) && withinAny(filepath.Clean(dir), p.roots)
}
