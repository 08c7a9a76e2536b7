package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/harness9/harness9/internal/lib/atomicfile"
)

// ServeConfig is the [serve] section: where `harness9 serve` listens, the
// directories its sessions may work in, and the tokens it accepts.
type ServeConfig struct {
	// Listen is the address (default service.DefaultListen via the CLI).
	Listen string `toml:"listen"`
	// Roots are the directories sessions may use; every token's roots lie
	// inside them.
	Roots []string `toml:"roots"`
	// Tokens are the accepted bearer tokens, kept as SHA-256 hashes.
	Tokens []ServeToken `toml:"tokens"`
	// IdleTimeout is idle_timeout as written ("15m"; "0" keeps sessions
	// open; "" leaves the server's default); Idle is its value.
	IdleTimeout string        `toml:"idle_timeout"`
	Idle        time.Duration `toml:"-"`
}

// ServeToken is one [[serve.tokens]] entry.
type ServeToken struct {
	Name   string   `toml:"name"`
	SHA256 string   `toml:"sha256"`
	Roots  []string `toml:"roots"`
}

func (c *Config) applyServe(s ServeConfig, bad func(key, format string, args ...any) error) error {
	for i, r := range s.Roots {
		if !filepath.IsAbs(r) {
			return bad("serve.roots", "%q is not an absolute path", r)
		}
		s.Roots[i] = filepath.Clean(r)
	}
	if s.IdleTimeout != "" {
		d, err := time.ParseDuration(s.IdleTimeout)
		if err != nil || d < 0 {
			return bad("serve.idle_timeout", "%q is not a duration like \"15m\" (\"0\" keeps sessions open)", s.IdleTimeout)
		}
		s.Idle = d
	}
	seen := map[string]bool{}
	for _, t := range s.Tokens {
		if strings.TrimSpace(t.Name) == "" {
			return bad("serve.tokens", "every token needs a name")
		}
		if seen[t.Name] {
			return bad("serve.tokens", "the name %q is used twice", t.Name)
		}
		seen[t.Name] = true
		for _, r := range t.Roots {
			if !filepath.IsAbs(r) {
				return bad("serve.tokens", "token %q: root %q is not an absolute path", t.Name, r)
			}
		}
	}
	c.Serve = s
	return nil
}

// AddServeToken appends a [[serve.tokens]] entry to config.toml, keeping
// the rest of the file as it is, and checks that the result still loads.
func (c *Config) AddServeToken(t ServeToken) error {
	for _, have := range c.Serve.Tokens {
		if have.Name == t.Name {
			return fmt.Errorf("a token named %q is already in %s; pick another name, or remove that entry first", t.Name, c.File)
		}
	}
	old, err := os.ReadFile(c.File)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot read %s: %w", c.File, err)
	}
	entry, err := toml.Marshal(struct {
		Serve struct {
			Tokens []ServeToken `toml:"tokens"`
		} `toml:"serve"`
	}{Serve: struct {
		Tokens []ServeToken `toml:"tokens"`
	}{Tokens: []ServeToken{t}}})
	if err != nil {
		return err
	}
	// go-toml writes the entry as [[serve.tokens]] with its keys: an array
	// of tables may follow any other table, so appending is valid TOML.
	text := string(old)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	text += "\n" + strings.TrimPrefix(string(entry), "[serve]\n")
	if err := os.MkdirAll(filepath.Dir(c.File), 0o700); err != nil {
		return err
	}
	root, err := os.OpenRoot(filepath.Dir(c.File))
	if err != nil {
		return err
	}
	defer root.Close()
	if _, err := atomicfile.Write(root, filepath.Base(c.File), []byte(text)); err != nil {
		return fmt.Errorf("cannot write %s: %w", c.File, err)
	}
	getenv := func(k string) string {
		if k == EnvHome {
			return c.Home
		}
		return ""
	}
	if _, err := Load(Flags{Workdir: c.Workdir}, getenv); err != nil {
		if old != nil {
			_, _ = atomicfile.Write(root, filepath.Base(c.File), old)
		}
		return fmt.Errorf("the token could not be added to %s (it was left as it was): %w", c.File, err)
	}
	c.Serve.Tokens = append(c.Serve.Tokens, t)
	return nil
}
