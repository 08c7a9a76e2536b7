package config

import (
	"strings"
	"testing"
	"time"
)

func TestWebSection(t *testing.T) {
	c, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: writeConfig(t, "")}))
	if err != nil {
		t.Fatal(err)
	}
	if w := c.Web; !w.Enabled || w.AllowPrivate || w.Search != SearchBrave || w.SearchAPIKeyEnv != EnvBraveKey || w.Timeout <= 0 || w.MaxBytes <= 0 {
		t.Fatalf("defaults: %+v", w)
	}
	home := writeConfig(t, `[web]
enabled = false
allow_private = true
timeout = "5s"
max_bytes = 1000
search = "off"
search_api_key_env = "MY_KEY"
search_base_url = "http://127.0.0.1:9/"
`)
	c, err = Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: home}))
	if err != nil {
		t.Fatal(err)
	}
	want := WebConfig{Enabled: false, AllowPrivate: true, Timeout: 5 * time.Second, MaxBytes: 1000,
		Search: SearchOff, SearchAPIKeyEnv: "MY_KEY", SearchBaseURL: "http://127.0.0.1:9/"}
	if c.Web != want {
		t.Fatalf("got %+v, want %+v", c.Web, want)
	}
	for body, key := range map[string]string{
		"[web]\ntimeout = \"soon\"\n": "web.timeout",
		"[web]\nmax_bytes = -1\n":     "web.max_bytes",
		"[web]\nsearch = \"bing\"\n":  "web.search",
	} {
		_, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: writeConfig(t, body)}))
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q: %v", body, err)
		}
	}
}

func TestProjectCannotSetWeb(t *testing.T) {
	wd := writeProject(t, "[web]\nallow_private = true\n")
	c, err := Load(Flags{Workdir: wd}, env(map[string]string{EnvHome: writeConfig(t, "")}))
	if err == nil && c.Web.AllowPrivate {
		t.Fatal("a project's config turned allow_private on")
	}
}
