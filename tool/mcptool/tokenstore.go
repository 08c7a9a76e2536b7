package mcptool

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/harness9/harness9/internal/lib/atomicfile"
	"golang.org/x/oauth2"
)

// Credentials are what an OAuth login to one MCP server leaves: the
// client harness9 registered (or was given), the authorization server's
// token endpoint, and the tokens. They are bound to the server's URL: a
// token is only ever sent to the endpoint it was obtained for.
type Credentials struct {
	// Server is the name the server had when the user logged in (shown
	// only; the URL is the key).
	Server string `json:"server"`
	// URL is the MCP endpoint the tokens are for.
	URL string `json:"url"`
	// Resource is the resource indicator (RFC 8707) the tokens were
	// issued for, sent again with every refresh.
	Resource     string   `json:"resource,omitempty"`
	ClientID     string   `json:"client_id"`
	ClientSecret string   `json:"client_secret,omitempty"`
	AuthURL      string   `json:"auth_url,omitempty"`
	TokenURL     string   `json:"token_url"`
	AuthStyle    int      `json:"auth_style,omitempty"` // oauth2.AuthStyle of the token endpoint
	Scopes       []string `json:"scopes,omitempty"`

	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	TokenType    string    `json:"token_type,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
}

// token is the credentials' token for oauth2.
func (c *Credentials) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: c.AccessToken, RefreshToken: c.RefreshToken, TokenType: c.TokenType, Expiry: c.Expiry}
}

// usable reports whether the access token is still good at t (a token
// without an expiry is good until the server says otherwise).
func (c *Credentials) usable(t time.Time) bool {
	return c.AccessToken != "" && (c.Expiry.IsZero() || t.Before(c.Expiry))
}

// TokenStore keeps the OAuth credentials of MCP servers, by server URL.
// Implementations must be safe for concurrent use.
type TokenStore interface {
	// Load returns the credentials stored for url, or nil and no error
	// when there are none.
	Load(url string) (*Credentials, error)
	// Save stores c under c.URL, replacing what was there.
	Save(c *Credentials) error
	// Delete forgets url's credentials; none stored is not an error.
	Delete(url string) error
}

// FileTokenStore keeps each server's credentials in a file of its own in
// a directory: JSON, mode 0600, the directory 0700, written atomically.
// harness9 uses <data dir>/mcp-auth, which no tool the model runs can read
// (the workspace deny list and the sandbox both refuse the data
// directory).
type FileTokenStore struct{ dir string }

// NewFileTokenStore returns a store in dir (created on the first Save).
func NewFileTokenStore(dir string) *FileTokenStore { return &FileTokenStore{dir: dir} }

// Dir is where the store keeps its files.
func (s *FileTokenStore) Dir() string { return s.dir }

// fileName is the file of url's credentials: a hash, so that a URL never
// names a path.
func fileName(url string) string {
	sum := sha256.Sum256([]byte(url))
	return hex.EncodeToString(sum[:12]) + ".json"
}

// maxCredentialsFile bounds a credentials file read.
const maxCredentialsFile = 1 << 20

// Load reads url's credentials. A file for another URL (which a hash
// collision cannot make, but a hand edit can) counts as none.
func (s *FileTokenStore) Load(url string) (*Credentials, error) {
	root, err := os.OpenRoot(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("MCP credentials: %w", err)
	}
	defer root.Close()
	f, err := root.Open(fileName(url))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("MCP credentials: %w", err)
	}
	defer f.Close()
	var c Credentials
	dec := json.NewDecoder(&limitedReader{r: f, left: maxCredentialsFile})
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("MCP credentials for %s are damaged (%w); log in again", url, err)
	}
	if c.URL != url {
		return nil, nil
	}
	return &c, nil
}

// Save writes c, readable by its owner only.
func (s *FileTokenStore) Save(c *Credentials) error {
	if c == nil || c.URL == "" {
		return errors.New("MCP credentials: no server URL")
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WritePrivateFile(filepath.Join(s.dir, fileName(c.URL)), data); err != nil {
		return fmt.Errorf("MCP credentials: %w", err)
	}
	return nil
}

// Delete removes url's file.
func (s *FileTokenStore) Delete(url string) error {
	root, err := os.OpenRoot(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("MCP credentials: %w", err)
	}
	defer root.Close()
	if err := root.Remove(fileName(url)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("MCP credentials: %w", err)
	}
	return nil
}

type limitedReader struct {
	r    interface{ Read([]byte) (int, error) }
	left int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, errors.New("file too large")
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}
