package cli

import (
	"sync"
	"time"
)

// idleCache keeps what is built once per key and used by many callers at
// a time — a worker's wiring of a workdir and model: its sandbox, MCP
// servers, skills and tools — while callers hold it, and a few of them
// after their last caller let go, so the next session in the same workdir
// does not start its MCP servers again. A value nobody holds is closed
// once it has been idle for ttl, or when more than max values are idle
// (the least recently released first). A value in use is never closed
// before close is called. Without this a worker kept every workdir it
// ever ran a session in: 200 sessions in 200 workdirs left 137 MiB and
// every MCP server they started.
type idleCache[V interface{ Close() }] struct {
	max int           // idle values kept at most
	ttl time.Duration // how long an idle value is kept
	now func() time.Time

	mu      sync.Mutex
	entries map[string]*idleEntry[V]
}

type idleEntry[V any] struct {
	v         V
	refs      int
	idleSince time.Time // when refs last fell to 0
}

func newIdleCache[V interface{ Close() }](max int, ttl time.Duration) *idleCache[V] {
	return &idleCache[V]{max: max, ttl: ttl, now: time.Now, entries: map[string]*idleEntry[V]{}}
}

// acquire returns key's value, built with build when there is none, and
// the function that lets go of it (call it once). build runs without the
// cache's lock, so a slow build (MCP servers starting) holds up no other
// key; when two callers build the same key at once, one value is kept and
// the other closed.
func (c *idleCache[V]) acquire(key string, build func() (V, error)) (V, func(), error) {
	c.mu.Lock()
	if e, ok := c.entries[key]; ok {
		e.refs++
		c.mu.Unlock()
		return e.v, c.releaser(key, e), nil
	}
	c.mu.Unlock()
	v, err := build()
	if err != nil {
		var zero V
		return zero, nil, err
	}
	c.mu.Lock()
	if e, ok := c.entries[key]; ok {
		e.refs++
		c.mu.Unlock()
		v.Close()
		return e.v, c.releaser(key, e), nil
	}
	e := &idleEntry[V]{v: v, refs: 1}
	c.entries[key] = e
	c.mu.Unlock()
	return v, c.releaser(key, e), nil
}

func (c *idleCache[V]) releaser(key string, e *idleEntry[V]) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			e.refs--
			if e.refs == 0 {
				e.idleSince = c.now()
			}
			stale := c.evictLocked()
			c.mu.Unlock()
			for _, v := range stale {
				v.Close()
			}
		})
	}
}

// evictLocked removes the idle values past their ttl and, beyond max,
// the ones idle the longest, and returns them to be closed outside the
// lock.
func (c *idleCache[V]) evictLocked() []V {
	now := c.now()
	var stale []V
	var idle []string
	for k, e := range c.entries {
		if e.refs > 0 {
			continue
		}
		if now.Sub(e.idleSince) >= c.ttl {
			stale = append(stale, e.v)
			delete(c.entries, k)
			continue
		}
		idle = append(idle, k)
	}
	for len(idle) > c.max {
		oldest := 0
		for i, k := range idle {
			if c.entries[k].idleSince.Before(c.entries[idle[oldest]].idleSince) {
				oldest = i
			}
		}
		stale = append(stale, c.entries[idle[oldest]].v)
		delete(c.entries, idle[oldest])
		idle = append(idle[:oldest], idle[oldest+1:]...)
	}
	return stale
}

// sweep closes the values idle for longer than ttl; a worker calls it
// now and then, so a workdir's MCP servers do not outlive a quiet hour.
func (c *idleCache[V]) sweep() {
	c.mu.Lock()
	stale := c.evictLocked()
	c.mu.Unlock()
	for _, v := range stale {
		v.Close()
	}
}

// len reports the values kept, in use or idle.
func (c *idleCache[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// close closes every value, in use or not; the cache is empty afterwards.
func (c *idleCache[V]) close() {
	c.mu.Lock()
	all := c.entries
	c.entries = map[string]*idleEntry[V]{}
	c.mu.Unlock()
	for _, e := range all {
		e.v.Close()
	}
}
