//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
)

// front is the one address the driver talks to: the serve itself, or a
// proxy over several that keeps each session on the serve that created it.
func front(backends []*proc) (string, func(), error) {
	if len(backends) == 1 {
		return backends[0].url, func() {}, nil
	}
	var targets []*url.URL
	for _, b := range backends {
		u, err := url.Parse(b.url)
		if err != nil {
			return "", nil, err
		}
		targets = append(targets, u)
	}
	a := &affinity{targets: targets, owner: map[string]int{}}
	rp := &httputil.ReverseProxy{
		Rewrite:        a.rewrite,
		ModifyResponse: a.learn,
		FlushInterval:  -1, // event streams go through as they come
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: rp}
	go func() { _ = hs.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = hs.Close() }, nil
}

// affinity routes a session's requests to the serve that holds it, and a
// request naming no session to the next serve in turn.
type affinity struct {
	targets []*url.URL

	mu    sync.Mutex
	next  int
	owner map[string]int // session id → index in targets
}

// sessionOf is the session id in path /api/sessions/{id}/…, or "".
func sessionOf(path string) string {
	rest, ok := strings.CutPrefix(path, "/api/sessions/")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, "/")
	return id
}

func (a *affinity) rewrite(r *httputil.ProxyRequest) {
	a.mu.Lock()
	i, ok := a.owner[sessionOf(r.In.URL.Path)]
	if !ok {
		i = a.next % len(a.targets)
		a.next++
	}
	a.mu.Unlock()
	r.SetURL(a.targets[i])
	r.Out.Host = r.In.Host
}

// learn records which serve created a session (POST /api/sessions).
func (a *affinity) learn(resp *http.Response) error {
	req := resp.Request
	if req.Method != http.MethodPost || req.URL.Path != "/api/sessions" || resp.StatusCode != http.StatusCreated {
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var created struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(body, &created) != nil || created.ID == "" {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, t := range a.targets {
		if t.Host == req.URL.Host {
			a.owner[created.ID] = i
		}
	}
	return nil
}
