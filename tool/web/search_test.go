package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/harness9/harness9/tool"
)

// braveFake answers like api.search.brave.com/res/v1/web/search.
func braveFake(t *testing.T, key string) *server {
	return newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/res/v1/web/search" || r.Method != http.MethodGet {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("X-Subscription-Token") != key {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","status":401}}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"type":"search","query":{"original":%q},"mixed":{"type":"mixed","main":[]},
		"web":{"type":"search","results":[
		 {"title":"The Go Programming Language","url":"https://go.dev/","description":"Go is an <strong>open source</strong> programming language &amp; more.","is_source_local":false,"profile":{"name":"Go"}},
		 {"title":"Go 1.26 Release Notes","url":"https://go.dev/doc/go1.26","description":"What&#39;s new\nin Go 1.26","age":"February 2026"}
		]}}`, r.URL.Query().Get("q"))
	})
}

func search(t *testing.T, s *Search, in SearchInput) (string, bool) {
	t.Helper()
	raw, _ := json.Marshal(in)
	res, err := s.Execute(context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	return res.Output, res.IsError
}

func TestBraveSearch(t *testing.T) {
	fake := braveFake(t, "k3y")
	s := NewSearch(NewBrave("k3y", WithBraveBaseURL(fake.URL+"/")))
	out, isErr := search(t, s, SearchInput{Query: "golang release notes", Count: 5})
	if isErr {
		t.Fatal(out)
	}
	for _, want := range []string{"1. The Go Programming Language\n   https://go.dev/\n   Go is an open source programming language & more.",
		"2. Go 1.26 Release Notes\n   https://go.dev/doc/go1.26\n   What's new in Go 1.26"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	q := fake.reqs[0].URL.Query()
	if q.Get("q") != "golang release notes" || q.Get("count") != "5" {
		t.Errorf("query sent: %v", q)
	}
	if !s.ReadOnly() {
		t.Error("web_search must be read-only")
	}
}

func TestBraveSearchErrors(t *testing.T) {
	fake := braveFake(t, "right")
	s := NewSearch(NewBrave("wrong", WithBraveBaseURL(fake.URL)))
	out, isErr := search(t, s, SearchInput{Query: "x"})
	if !isErr || !strings.Contains(out, "refused the key") || strings.Contains(out, "wrong") {
		t.Fatalf("bad key: %v %s", isErr, out)
	}
	if out, isErr = search(t, s, SearchInput{Query: "  "}); !isErr {
		t.Fatalf("empty query: %s", out)
	}
	if n := fake.hits.Load(); n != 1 {
		t.Fatalf("fake saw %d requests, want 1", n)
	}
	// Count is bounded.
	good := NewSearch(NewBrave("right", WithBraveBaseURL(fake.URL)))
	search(t, good, SearchInput{Query: "x", Count: 500})
	if c := fake.reqs[1].URL.Query().Get("count"); c != "20" {
		t.Fatalf("count %s sent, want 20", c)
	}
}

func TestSummaries(t *testing.T) {
	fake := braveFake(t, "k")
	s := NewSearch(NewBrave("k", WithBraveBaseURL(fake.URL)))
	raw, _ := json.Marshal(SearchInput{Query: "go"})
	res, _ := s.Execute(context.Background(), raw)
	var _ tool.Summarizer = s
	if got := s.Summary(raw, res); got != "2 results" {
		t.Errorf("search summary %q", got)
	}
	f := NewFetch()
	var _ tool.Summarizer = f
	if got := f.Summary(nil, tool.Result{Output: "URL: https://go.dev/\n\nhello"}); got != "fetched https://go.dev/ · 6 characters" {
		t.Errorf("fetch summary %q", got)
	}
	if got := f.Summary(nil, tool.Errorf("web_fetch: refused: x\nmore")); got != "refused: x" {
		t.Errorf("fetch error summary %q", got)
	}
}
