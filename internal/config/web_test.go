package config

import (
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/tool/web"
)

func TestWebSection(t *testing.T) {
	c, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: writeConfig(t, "")}))
	if err != nil {
		t.Fatal(err)
	}
	if w := c.Web; !w.Enabled || w.AllowPrivate || w.Search != SearchBrave || w.SearchAPIKeyEnv != EnvBraveKey || w.Timeout <= 0 || w.MaxBytes <= 0 ||
		w.SearchModel != web.DefaultAnthropicSearchModel {
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
search_model = "claude-sonnet-4-5"
`)
	c, err = Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: home}))
	if err != nil {
		t.Fatal(err)
	}
	want := WebConfig{Enabled: false, AllowPrivate: true, Timeout: 5 * time.Second, MaxBytes: 1000,
		Search: SearchOff, SearchAPIKeyEnv: "MY_KEY", SearchBaseURL: "http://127.0.0.1:9/", SearchModel: "claude-sonnet-4-5"}
	if c.Web != want {
		t.Fatalf("got %+v, want %+v", c.Web, want)
	}
	for body, want := range map[string][]string{
		"[web]\ntimeout = \"soon\"\n":              {"web.timeout"},
		"[web]\nmax_bytes = -1\n":                  {"web.max_bytes"},
		"[web]\nsearch = \"bing\"\n":               {"web.search", `"bing"`, `"brave"`, `"anthropic"`, `"off"`},
		"[web]\nsearch_model = \"claude haiku\"\n": {"web.search_model", "claude-haiku-4-5"},
	} {
		_, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: writeConfig(t, body)}))
		for _, w := range want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%q: %v lacks %s", body, err, w)
			}
		}
	}
}

// search = "anthropic" reads its key from ANTHROPIC_API_KEY unless the
// file names another variable; search_model may carry the provider prefix.
func TestWebSearchAnthropic(t *testing.T) {
	for body, want := range map[string]WebConfig{
		"[web]\nsearch = \"anthropic\"\n": {Search: SearchAnthropic, SearchAPIKeyEnv: EnvAnthropicKey, SearchModel: web.DefaultAnthropicSearchModel},
		"[web]\nsearch = \"anthropic\"\nsearch_api_key_env = \"SEARCH_KEY\"\nsearch_model = \"anthropic/claude-sonnet-4-5\"\n": {
			Search: SearchAnthropic, SearchAPIKeyEnv: "SEARCH_KEY", SearchModel: "claude-sonnet-4-5"},
		"[web]\nsearch_model = \"claude-opus-4-1\"\n": {Search: SearchBrave, SearchAPIKeyEnv: EnvBraveKey, SearchModel: "claude-opus-4-1"},
	} {
		c, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: writeConfig(t, body)}))
		if err != nil {
			t.Fatal(err)
		}
		got := WebConfig{Search: c.Web.Search, SearchAPIKeyEnv: c.Web.SearchAPIKeyEnv, SearchModel: c.Web.SearchModel}
		if got != want {
			t.Errorf("%q: got %+v, want %+v", body, got, want)
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
