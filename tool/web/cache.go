package web

import (
	"sync"
	"time"
)

// cache keeps fetched pages for a while, so a model that reads a page
// again (with another prompt, after compaction) does not download it
// again. It is bounded: the entry closest to expiry goes first.
type cache struct {
	mu      sync.Mutex
	ttl     time.Duration
	max     int
	now     func() time.Time
	entries map[string]cacheEntry
}

type cacheEntry struct {
	p       page
	expires time.Time
}

func newCache(ttl time.Duration, max int, now func() time.Time) *cache {
	return &cache{ttl: ttl, max: max, now: now, entries: map[string]cacheEntry{}}
}

func (c *cache) get(key string) (page, bool) {
	if c.ttl <= 0 {
		return page{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return page{}, false
	}
	if !c.now().Before(e.expires) {
		delete(c.entries, key)
		return page{}, false
	}
	return e.p, true
}

func (c *cache) put(key string, p page) {
	if c.ttl <= 0 || c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	for k, e := range c.entries {
		if !now.Before(e.expires) {
			delete(c.entries, k)
		}
	}
	for len(c.entries) >= c.max {
		var oldest string
		var at time.Time
		for k, e := range c.entries {
			if oldest == "" || e.expires.Before(at) {
				oldest, at = k, e.expires
			}
		}
		delete(c.entries, oldest)
	}
	c.entries[key] = cacheEntry{p: p, expires: now.Add(c.ttl)}
}
