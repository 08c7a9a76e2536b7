package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A token added to a config file with comments and a [serve] table keeps
// the file as it was and loads back with the new token.
func TestAddServeToken(t *testing.T) {
	home := writeConfig(t, "# my settings\nmodel = \"openai/gpt-4.1\"\n\n[serve]\nroots = [\"/srv\"]\n\n[planning]\nstall_threshold = 4\n")
	getenv := env(map[string]string{EnvHome: home})
	c, err := Load(Flags{Workdir: t.TempDir()}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddServeToken(ServeToken{Name: "ci", SHA256: strings.Repeat("ab", 32), Roots: []string{"/srv/app"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.AddServeToken(ServeToken{Name: "ci", SHA256: strings.Repeat("cd", 32), Roots: []string{"/srv"}}); err == nil {
		t.Error("a second token named ci was added")
	}
	data, _ := os.ReadFile(filepath.Join(home, "config.toml"))
	if !strings.HasPrefix(string(data), "# my settings\n") {
		t.Errorf("the file lost its comment:\n%s", data)
	}
	c2, err := Load(Flags{Workdir: t.TempDir()}, getenv)
	if err != nil {
		t.Fatalf("reload: %v\n%s", err, data)
	}
	if c2.StallThreshold != 4 || len(c2.Serve.Roots) != 1 || len(c2.Serve.Tokens) != 1 ||
		c2.Serve.Tokens[0].Name != "ci" || c2.Serve.Tokens[0].Roots[0] != "/srv/app" {
		t.Errorf("reloaded %+v, stall %d\n%s", c2.Serve, c2.StallThreshold, data)
	}
}

func TestServeConfigRejectsRelativeRoots(t *testing.T) {
	home := writeConfig(t, "[serve]\nroots = [\"srv\"]\n")
	if _, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: home})); err == nil || !strings.Contains(err.Error(), "serve.roots") {
		t.Fatalf("err = %v", err)
	}
}

func TestServeIdleTimeout(t *testing.T) {
	for _, tc := range []struct {
		text string
		want time.Duration
		bad  bool
	}{{"5m", 5 * time.Minute, false}, {"0", 0, false}, {"-1s", 0, true}, {"soon", 0, true}} {
		home := writeConfig(t, "[serve]\nidle_timeout = \""+tc.text+"\"\n")
		c, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: home}))
		switch {
		case tc.bad && (err == nil || !strings.Contains(err.Error(), "serve.idle_timeout")):
			t.Errorf("%q: err %v, want one naming serve.idle_timeout", tc.text, err)
		case !tc.bad && (err != nil || c.Serve.Idle != tc.want || c.Serve.IdleTimeout != tc.text):
			t.Errorf("%q: %v, %v", tc.text, c, err)
		}
	}
}

func TestServeLimits(t *testing.T) {
	home := writeConfig(t, "[serve]\nmax_runs = 3\nmax_runs_per_token = 0\nrate = 2.5\nmax_streams_per_session = 4\n")
	c, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: home}))
	if err != nil {
		t.Fatal(err)
	}
	s := c.Serve
	if s.MaxRuns == nil || *s.MaxRuns != 3 || s.MaxRunsPerToken == nil || *s.MaxRunsPerToken != 0 || s.Rate == nil || *s.Rate != 2.5 ||
		s.MaxStreams == nil || *s.MaxStreams != 4 || s.MaxQueued != nil || s.Burst != nil {
		t.Errorf("limits %+v", s)
	}
	for _, text := range []string{"max_runs = -1", "rate = -0.5", "max_queued = -2"} {
		home := writeConfig(t, "[serve]\n"+text+"\n")
		key := "serve." + text[:strings.Index(text, " ")]
		if _, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: home})); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q: %v, want an error naming %s", text, err, key)
		}
	}
}
