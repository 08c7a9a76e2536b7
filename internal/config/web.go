package config

import (
	"strings"
	"time"

	"github.com/harness9/harness9/tool/web"
)

// Web search backends (`[web] search`).
const (
	SearchBrave     = "brave"
	SearchAnthropic = "anthropic"
	SearchOff       = "off"
)

// EnvBraveKey is where the Brave Search API key is read from by default.
const EnvBraveKey = "BRAVE_API_KEY"

// WebConfig is the `[web]` section: the web_fetch and web_search tools.
type WebConfig struct {
	// Enabled offers web_fetch (and web_search when a key is set).
	Enabled bool
	// AllowPrivate lets web_fetch reach loopback, private and link-local
	// addresses. Only the user's own config.toml can set it.
	AllowPrivate bool
	// Timeout bounds one fetch.
	Timeout time.Duration
	// MaxBytes caps the bytes read from one response.
	MaxBytes int64
	// Search is the search backend: SearchBrave, SearchAnthropic or
	// SearchOff.
	Search string
	// SearchAPIKeyEnv names the environment variable holding the search
	// API key; web_search is offered only when it is set. Unless the
	// file sets it, it is EnvBraveKey for Brave and EnvAnthropicKey for
	// Anthropic.
	SearchAPIKeyEnv string
	// SearchBaseURL overrides the search API's root URL (for Anthropic,
	// the anthropic provider's base URL is used when this is empty).
	SearchBaseURL string
	// SearchModel is the model that runs Anthropic's search tool.
	SearchModel string
}

type webFile struct {
	Enabled         *bool  `toml:"enabled"`
	AllowPrivate    bool   `toml:"allow_private"`
	Timeout         string `toml:"timeout"`
	MaxBytes        int64  `toml:"max_bytes"`
	Search          string `toml:"search"`
	SearchAPIKeyEnv string `toml:"search_api_key_env"`
	SearchBaseURL   string `toml:"search_base_url"`
	SearchModel     string `toml:"search_model"`
}

func defaultWeb() WebConfig {
	return WebConfig{Enabled: true, Timeout: web.DefaultTimeout, MaxBytes: web.DefaultMaxBytes,
		Search: SearchBrave, SearchAPIKeyEnv: EnvBraveKey, SearchModel: web.DefaultAnthropicSearchModel}
}

func (c *Config) applyWeb(w webFile, bad func(key, format string, args ...any) error) error {
	if w.Enabled != nil {
		c.Web.Enabled = *w.Enabled
	}
	c.Web.AllowPrivate = w.AllowPrivate
	if w.Timeout != "" {
		d, err := time.ParseDuration(w.Timeout)
		if err != nil || d <= 0 {
			return bad("web.timeout", "%q is not a positive duration like \"30s\"", w.Timeout)
		}
		c.Web.Timeout = d
	}
	switch {
	case w.MaxBytes < 0:
		return bad("web.max_bytes", "must not be negative")
	case w.MaxBytes > 0:
		c.Web.MaxBytes = w.MaxBytes
	}
	switch w.Search {
	case "":
	case SearchBrave, SearchAnthropic, SearchOff:
		c.Web.Search = w.Search
	default:
		return bad("web.search", "%q is not one of %q, %q or %q", w.Search, SearchBrave, SearchAnthropic, SearchOff)
	}
	switch {
	case w.SearchAPIKeyEnv != "":
		c.Web.SearchAPIKeyEnv = w.SearchAPIKeyEnv
	case c.Web.Search == SearchAnthropic:
		c.Web.SearchAPIKeyEnv = EnvAnthropicKey
	}
	c.Web.SearchBaseURL = w.SearchBaseURL
	if m := strings.TrimPrefix(strings.TrimSpace(w.SearchModel), TypeAnthropic+"/"); m != "" {
		if strings.ContainsAny(m, " \t\n") {
			return bad("web.search_model", "%q is not a model name like %q", w.SearchModel, web.DefaultAnthropicSearchModel)
		}
		c.Web.SearchModel = m
	}
	return nil
}
