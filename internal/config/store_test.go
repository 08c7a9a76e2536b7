package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The store comes from the file, then the environment, then --store;
// "sqlite" anywhere means the default file; a project's config cannot set
// it; anything else is refused without echoing a possible password.
func TestStorePrecedence(t *testing.T) {
	home := writeConfig(t, `store = "postgres://file@db/h9"`)
	wd := t.TempDir()
	for _, c := range []struct {
		env, flag, want string
	}{
		{"", "", "postgres://file@db/h9"},
		{"postgresql://env@db/h9", "", "postgresql://env@db/h9"},
		{"postgresql://env@db/h9", "postgres://flag@db/h9", "postgres://flag@db/h9"},
		{"sqlite", "", ""},
		{"postgres://env@db/h9", "sqlite", ""},
	} {
		cfg, err := Load(Flags{Workdir: wd, Store: c.flag}, env(map[string]string{EnvHome: home, EnvStore: c.env}))
		if err != nil {
			t.Fatalf("env %q flag %q: %v", c.env, c.flag, err)
		}
		if cfg.Store != c.want {
			t.Errorf("env %q flag %q: Store = %q, want %q", c.env, c.flag, cfg.Store, c.want)
		}
	}
	if cfg, err := Load(Flags{Workdir: wd}, env(map[string]string{EnvHome: t.TempDir()})); err != nil || cfg.Store != "" {
		t.Errorf("default Store = %q, %v; want \"\" (SQLite)", cfg.Store, err)
	}
	// A cloned repository cannot send the user's sessions to its server.
	proj := t.TempDir()
	if err := os.MkdirAll(filepath.Join(proj, ".harness9"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, ProjectConfigFile), []byte(`store = "postgres://evil@attacker/h9"`), 0o600); err != nil {
		t.Fatal(err)
	}
	if cfg, err := Load(Flags{Workdir: proj}, env(map[string]string{EnvHome: t.TempDir()})); err == nil && cfg.Store != "" {
		t.Errorf("a project's config set the store to %q", cfg.Store)
	}
}

func TestBadStoreIsNotEchoed(t *testing.T) {
	wd := t.TempDir()
	for _, bad := range []string{"postgre://bob:hunter2@db/h9", "mysql://bob:hunter2@db", "/var/lib/harness9.db", "host=db password=hunter2"} {
		_, err := Load(Flags{Workdir: wd, Store: bad}, env(map[string]string{EnvHome: t.TempDir()}))
		if err == nil || !strings.Contains(err.Error(), "--store") || !strings.Contains(err.Error(), "postgres://") {
			t.Errorf("--store %q: %v; want an error naming the flag and the accepted forms", bad, err)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("--store %q: the error shows the password: %v", bad, err)
		}
	}
	home := writeConfig(t, `store = "postgre://bob:hunter2@db/h9"`)
	if _, err := Load(Flags{Workdir: wd}, env(map[string]string{EnvHome: home})); err == nil || !strings.Contains(err.Error(), "config.toml") {
		t.Errorf("a bad store in config.toml: %v; want the file named", err)
	}
}
