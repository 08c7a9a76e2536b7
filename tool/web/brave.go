package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultBraveBaseURL is the root of Brave's Search API.
const DefaultBraveBaseURL = "https://api.search.brave.com"

// Brave is a Searcher backed by the Brave Search API
// (GET /res/v1/web/search, key in X-Subscription-Token).
type Brave struct {
	key     string
	baseURL string
	client  *http.Client
}

// BraveOption configures Brave.
type BraveOption func(*Brave)

// WithBraveBaseURL replaces the API root (tests point it at a local fake).
func WithBraveBaseURL(u string) BraveOption {
	return func(b *Brave) { b.baseURL = strings.TrimRight(u, "/") }
}

// WithBraveHTTPClient replaces the HTTP client.
func WithBraveHTTPClient(c *http.Client) BraveOption { return func(b *Brave) { b.client = c } }

// NewBrave returns a Brave Search backend using key.
func NewBrave(key string, opts ...BraveOption) *Brave {
	b := &Brave{key: key, baseURL: DefaultBraveBaseURL, client: &http.Client{Timeout: 20 * time.Second}}
	for _, o := range opts {
		o(b)
	}
	return b
}

// braveResponse is the part of Brave's answer used here.
type braveResponse struct {
	Web struct {
		Results []struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"`
		} `json:"results"`
	} `json:"web"`
}

// Search implements Searcher.
func (b *Brave) Search(ctx context.Context, query string, count int) ([]SearchResult, error) {
	q := url.Values{"q": {query}, "count": {strconv.Itoa(count)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.baseURL+"/res/v1/web/search?"+q.Encode(), nil)
	if err != nil {
		return nil, fmt.Errorf("the Brave Search base URL %q is not valid: %w", b.baseURL, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", b.key)
	req.Header.Set("User-Agent", userAgent)
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the Brave Search API is unreachable: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, fmt.Errorf("reading the Brave Search API answer: %w", err)
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, fmt.Errorf("the Brave Search API refused the key (HTTP %d); the user must check the key in the configured environment variable", resp.StatusCode)
	case resp.StatusCode == http.StatusTooManyRequests:
		return nil, fmt.Errorf("the Brave Search API rate limit was reached (HTTP 429); try again later")
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("the Brave Search API answered HTTP %d: %s", resp.StatusCode, oneLine(headOf(string(body), 300)))
	}
	var r braveResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("the Brave Search API answer is not the expected JSON: %w", err)
	}
	out := make([]SearchResult, 0, len(r.Web.Results))
	for _, x := range r.Web.Results {
		out = append(out, SearchResult{Title: x.Title, URL: x.URL, Description: x.Description})
	}
	return out, nil
}
