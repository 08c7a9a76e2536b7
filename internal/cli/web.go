package cli

import (
	"context"
	"fmt"
	"net/url"

	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/tool/web"
)

// webOptions are web_fetch, and web_search when its key is set, from the
// [web] section. The fetches are the harness's own: the bash sandbox stays
// offline. The page cache lives as long as this runtime.
func webOptions(c *config.Config, getenv func(string) string) []harness.Option {
	if !c.Web.Enabled {
		return nil
	}
	opts := []harness.Option{harness.WithWebFetch(
		web.WithTimeout(c.Web.Timeout),
		web.WithMaxBytes(c.Web.MaxBytes),
		web.WithAllowPrivate(c.Web.AllowPrivate),
	)}
	if s := searcher(c, getenv); s != nil {
		opts = append(opts, harness.WithWebSearch(s))
	}
	return opts
}

// searcher is the configured search backend, nil when there is none or
// its key is not set.
func searcher(c *config.Config, getenv func(string) string) web.Searcher {
	key := getenv(c.Web.SearchAPIKeyEnv)
	if key == "" {
		return nil
	}
	switch c.Web.Search {
	case config.SearchBrave:
		var opts []web.BraveOption
		if c.Web.SearchBaseURL != "" {
			opts = append(opts, web.WithBraveBaseURL(c.Web.SearchBaseURL))
		}
		return web.NewBrave(key, opts...)
	case config.SearchAnthropic:
		return web.NewAnthropic(key,
			web.WithAnthropicBaseURL(anthropicSearchURL(c, getenv)),
			web.WithAnthropicModel(c.Web.SearchModel))
	}
	return nil
}

// anthropicSearchURL is where Anthropic searches go: [web]
// search_base_url, else the anthropic provider's base URL (its config
// entry, then ANTHROPIC_BASE_URL), else "" for the public API.
func anthropicSearchURL(c *config.Config, getenv func(string) string) string {
	if c.Web.SearchBaseURL != "" {
		return c.Web.SearchBaseURL
	}
	if u := c.Providers[config.TypeAnthropic].BaseURL; u != "" {
		return u
	}
	return getenv(config.EnvAnthropicBaseURL)
}

// checkWeb says which web tools a session gets and how web_fetch treats
// private addresses.
func checkWeb(_ context.Context, d *doctorRun) (string, string) {
	w := d.cfg.Web
	if !w.Enabled {
		return checkSkip, "web_fetch and web_search are off ([web] enabled = false)"
	}
	private := "private, loopback and link-local addresses refused (allow with [web] allow_private = true or web_fetch(domain:…) allow rules)"
	if w.AllowPrivate {
		private = "private, loopback and link-local addresses allowed ([web] allow_private = true)"
	}
	detail := fmt.Sprintf("web_fetch: %s timeout, %d bytes max, %s", w.Timeout, w.MaxBytes, private)
	backend := map[string]string{config.SearchBrave: "a Brave Search API key", config.SearchAnthropic: "an Anthropic API key"}
	switch {
	case w.Search == config.SearchOff:
		detail += " · web_search: off ([web] search = \"off\")"
	case d.e.getenv(w.SearchAPIKeyEnv) == "":
		detail += fmt.Sprintf(" · web_search: not offered (set %s to %s, or choose another [web] search backend)", w.SearchAPIKeyEnv, backend[w.Search])
	case w.Search == config.SearchAnthropic:
		detail += fmt.Sprintf(" · web_search: Anthropic's web search tool through %s at %s, key from %s",
			w.SearchModel, hostOrDefault(anthropicSearchURL(d.cfg, d.e.getenv), "api.anthropic.com"), w.SearchAPIKeyEnv)
	default:
		detail += fmt.Sprintf(" · web_search: Brave Search, key from %s", w.SearchAPIKeyEnv)
	}
	return checkOK, detail
}

// hostOrDefault is the host of a base URL, or def when there is none.
func hostOrDefault(base, def string) string {
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		return u.Host
	}
	return def
}
