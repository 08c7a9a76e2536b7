package cli

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// part stands for a workdir's wiring: closing it twice, or using it
// after it was closed, is what the cache must never cause.
type part struct {
	name   string
	closed atomic.Int32
}

func (p *part) Close() { p.closed.Add(1) }

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newTestCache(max int, ttl time.Duration) (*idleCache[*part], *clock) {
	c := newIdleCache[*part](max, ttl)
	clk := &clock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	c.now = clk.now
	return c, clk
}

func buildPart(name string, built *[]*part) func() (*part, error) {
	return func() (*part, error) {
		p := &part{name: name}
		*built = append(*built, p)
		return p, nil
	}
}

func TestIdleCacheKeepsAFewIdleValuesAndClosesTheRest(t *testing.T) {
	c, clk := newTestCache(3, time.Hour)
	var built []*part
	for i := range 20 {
		clk.t = clk.t.Add(time.Second)
		_, release, err := c.acquire(fmt.Sprint("w", i), buildPart(fmt.Sprint("w", i), &built))
		if err != nil {
			t.Fatal(err)
		}
		release()
	}
	if n := c.len(); n != 3 {
		t.Fatalf("after 20 workdirs used once the cache keeps %d values, want the 3 most recent", n)
	}
	for i, p := range built {
		want := int32(1)
		if i >= 17 {
			want = 0
		}
		if got := p.closed.Load(); got != want {
			t.Errorf("%s closed %d times, want %d", p.name, got, want)
		}
	}
	// The most recent workdir is used again without a new build.
	v, release, err := c.acquire("w19", buildPart("again", &built))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if v != built[19] || len(built) != 20 {
		t.Fatalf("w19 was built again (%d builds)", len(built))
	}
}

func TestIdleCacheNeverClosesAValueInUse(t *testing.T) {
	c, clk := newTestCache(0, time.Minute)
	var built []*part
	held, releaseHeld, err := c.acquire("busy", buildPart("busy", &built))
	if err != nil {
		t.Fatal(err)
	}
	// A second step in the same workdir shares it and lets go first.
	again, releaseAgain, _ := c.acquire("busy", buildPart("dup", &built))
	if again != held || len(built) != 1 {
		t.Fatalf("a second step in the same workdir built it again")
	}
	releaseAgain()
	releaseAgain() // a release called twice counts once
	for i := range 5 {
		clk.t = clk.t.Add(time.Hour)
		_, r, _ := c.acquire(fmt.Sprint("other", i), buildPart(fmt.Sprint("other", i), &built))
		r()
		c.sweep()
	}
	if held.closed.Load() != 0 {
		t.Fatal("a wiring a step still holds was closed")
	}
	releaseHeld()
	if held.closed.Load() != 1 {
		t.Fatalf("with no idle values allowed, the last release closes it once (closed %d times)", held.closed.Load())
	}
}

func TestIdleCacheClosesValuesIdleBeyondTheirTTL(t *testing.T) {
	c, clk := newTestCache(8, 5*time.Minute)
	var built []*part
	_, release, _ := c.acquire("a", buildPart("a", &built))
	release()
	clk.t = clk.t.Add(4 * time.Minute)
	c.sweep()
	if built[0].closed.Load() != 0 {
		t.Fatal("closed before its ttl")
	}
	clk.t = clk.t.Add(time.Minute)
	c.sweep()
	if built[0].closed.Load() != 1 || c.len() != 0 {
		t.Fatalf("idle for its ttl: closed %d times, %d values kept", built[0].closed.Load(), c.len())
	}
}

func TestIdleCacheBuildFailureKeepsNothing(t *testing.T) {
	c, _ := newTestCache(8, time.Minute)
	boom := errors.New("no such workdir")
	if _, _, err := c.acquire("x", func() (*part, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if c.len() != 0 {
		t.Fatal("a failed build left an entry")
	}
}

// Steps of many sessions in a few workdirs at once: each value is built,
// kept or closed consistently (run with -race).
func TestIdleCacheConcurrentSteps(t *testing.T) {
	c := newIdleCache[*part](2, time.Hour)
	var mu sync.Mutex
	var all []*part
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			key := fmt.Sprint("w", i%7)
			v, release, err := c.acquire(key, func() (*part, error) {
				p := &part{name: key}
				mu.Lock()
				all = append(all, p)
				mu.Unlock()
				return p, nil
			})
			if err != nil {
				t.Error(err)
				return
			}
			if v.closed.Load() != 0 {
				t.Errorf("%s handed out after it was closed", key)
			}
			release()
		})
	}
	wg.Wait()
	c.close()
	for _, p := range all {
		if n := p.closed.Load(); n != 1 {
			t.Errorf("%s closed %d times, want exactly once", p.name, n)
		}
	}
}
