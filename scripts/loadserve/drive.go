//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// driver creates and drives sessions through one address.
type driver struct {
	url, token, root string
	client           http.Client
	refused          atomic.Int64 // 429 answers (retried after Retry-After)
}

// results are the run's measurements.
type results struct {
	wall              time.Duration
	review, execute   []time.Duration // create → awaiting review; approve → done
	failed            int
	firstFailure      string
	refused, watchers int64
}

// drive runs o.sessions sessions, o.concurrency at a time, with o.streams
// watchers on the first sessions, connected until every session is done.
func (d *driver) drive(ctx context.Context, o opts) (results, error) {
	var (
		res  results
		mu   sync.Mutex
		wg   sync.WaitGroup
		next atomic.Int64
	)
	wctx, stopWatchers := context.WithCancel(ctx)
	var watchers sync.WaitGroup
	var connected atomic.Int64
	start := time.Now()
	for range o.concurrency {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= o.sessions || ctx.Err() != nil {
					return
				}
				id, review, execute, err := d.one(ctx, i, func(id string) {
					if i < o.streams {
						watchers.Go(func() {
							if d.watch(wctx, id) {
								connected.Add(1)
							}
						})
					}
				})
				mu.Lock()
				if err != nil {
					res.failed++
					if res.firstFailure == "" {
						res.firstFailure = fmt.Sprintf("session %d %s: %v", i, id, err)
					}
				} else {
					res.review = append(res.review, review)
					res.execute = append(res.execute, execute)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	res.wall = time.Since(start)
	stopWatchers()
	watchers.Wait()
	res.refused, res.watchers = d.refused.Load(), connected.Load()
	return res, ctx.Err()
}

// one creates session i in Plan Mode with its prompt, waits for the plan,
// approves it and waits for the run to complete, following the session's
// event stream throughout; created is called with its id.
func (d *driver) one(ctx context.Context, i int, created func(string)) (id string, review, execute time.Duration, err error) {
	dir := filepath.Join(d.root, fmt.Sprintf("s%04d", i))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", 0, 0, err
	}
	t0 := time.Now()
	body, err := d.call(ctx, "POST", "/api/sessions", map[string]string{"workdir": dir, "mode": "plan", "prompt": "write a note"}, http.StatusCreated)
	if err != nil {
		return "", 0, 0, fmt.Errorf("create: %w", err)
	}
	var s struct{ ID string }
	if err := json.Unmarshal(body, &s); err != nil {
		return "", 0, 0, err
	}
	id = s.ID
	created(id)
	events, closeEvents, err := d.events(ctx, id)
	if err != nil {
		return id, 0, 0, err
	}
	defer closeEvents()
	if err := until(events, "awaiting_approval"); err != nil {
		return id, 0, 0, fmt.Errorf("waiting for the plan: %w", err)
	}
	t1 := time.Now()
	if _, err := d.call(ctx, "POST", "/api/sessions/"+id+"/review", map[string]string{"choice": "approve_auto"}, http.StatusOK); err != nil {
		return id, 0, 0, fmt.Errorf("approve: %w", err)
	}
	if err := until(events, "completed"); err != nil {
		return id, 0, 0, fmt.Errorf("waiting for the execution: %w", err)
	}
	return id, t1.Sub(t0), time.Since(t1), nil
}

// until reads events until a done event with status; another done status
// is an error.
func until(events *bufio.Scanner, status string) error {
	for events.Scan() {
		data, ok := strings.CutPrefix(events.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct{ Type, Status, Message string }
		if json.Unmarshal([]byte(data), &ev) != nil || ev.Type != "done" {
			continue
		}
		switch ev.Status {
		case status:
			return nil
		case "awaiting_approval", "completed":
			continue // an earlier run's end, replayed
		}
		return fmt.Errorf("the run ended %s", ev.Status)
	}
	if err := events.Err(); err != nil {
		return err
	}
	return io.ErrUnexpectedEOF
}

// watch follows session id's event stream until ctx ends; it reports
// whether it connected.
func (d *driver) watch(ctx context.Context, id string) bool {
	sc, closeEvents, err := d.events(ctx, id)
	if err != nil {
		return false
	}
	defer closeEvents()
	for sc.Scan() {
	}
	return true
}

// events opens session id's event stream (retrying a 429).
func (d *driver) events(ctx context.Context, id string) (*bufio.Scanner, func(), error) {
	for {
		req, err := http.NewRequestWithContext(ctx, "GET", d.url+"/api/sessions/"+id+"/events", nil)
		if err != nil {
			return nil, nil, err
		}
		req.Header.Set("Authorization", "Bearer "+d.token)
		resp, err := d.client.Do(req)
		if err != nil {
			return nil, nil, err
		}
		if resp.StatusCode == http.StatusOK {
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(nil, 1<<20)
			return sc, func() { resp.Body.Close() }, nil
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err := d.refusal(ctx, resp, b); err != nil {
			return nil, nil, fmt.Errorf("events: %w", err)
		}
	}
}

// call sends a JSON request and returns the body of the answer want; a
// 429 is retried after its Retry-After.
func (d *driver) call(ctx context.Context, method, path string, body any, want int) ([]byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	for {
		req, err := http.NewRequestWithContext(ctx, method, d.url+path, bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+d.token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := d.client.Do(req)
		if err != nil {
			return nil, err
		}
		out, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == want {
			return out, nil
		}
		if err := d.refusal(ctx, resp, out); err != nil {
			return nil, err
		}
	}
}

// refusal waits out a 429's Retry-After (nil: try again) or returns the
// answer as an error.
func (d *driver) refusal(ctx context.Context, resp *http.Response, body []byte) error {
	if resp.StatusCode != http.StatusTooManyRequests {
		return fmt.Errorf("%s", strings.TrimSpace(resp.Status+" "+string(body)))
	}
	d.refused.Add(1)
	secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Duration(max(secs, 1)) * time.Second):
		return nil
	}
}
