//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// sampler records, every 500 ms, the resident memory of each serve and
// then each worker, and the database's connections (other than its own).
type sampler struct {
	pids   []int // the serves', then the workers'
	serves int
	db     *pgx.Conn
	stopped,
	done chan struct{}

	mu      sync.Mutex
	rss     [][]int64 // per process, KiB
	maxConn int
}

// snapshot is the memory of each process at one moment.
type snapshot []int64

func newSampler(ctx context.Context, dsn string, serves, workers []*proc) (*sampler, error) {
	db, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("connect to count connections: %w", err)
	}
	s := &sampler{db: db, serves: len(serves), stopped: make(chan struct{}), done: make(chan struct{}),
		rss: make([][]int64, len(serves)+len(workers))}
	for _, p := range append(slices.Clone(serves), workers...) {
		s.pids = append(s.pids, p.cmd.Process.Pid)
	}
	go s.loop()
	return s, nil
}

func (s *sampler) loop() {
	defer close(s.done)
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		s.sample()
		select {
		case <-s.stopped:
			return
		case <-t.C:
		}
	}
}

func (s *sampler) sample() {
	var conns int
	err := s.db.QueryRow(context.Background(),
		`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&conns)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		s.maxConn = max(s.maxConn, conns)
	}
	for i, pid := range s.pids {
		s.rss[i] = append(s.rss[i], rss(pid))
	}
}

// now samples at once and returns each process's memory.
func (s *sampler) now() snapshot {
	out := make(snapshot, len(s.pids))
	for i, pid := range s.pids {
		out[i] = rss(pid)
	}
	return out
}

func (s *sampler) stop() {
	close(s.stopped)
	<-s.done
	_ = s.db.Close(context.Background())
}

// rss is pid's VmRSS in KiB (0 when unknown).
func rss(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// report prints the run's numbers, and a row of docs/service.md's table.
func report(o opts, r results, s *sampler, end, idle snapshot) {
	pct := func(ds []time.Duration, p float64) string {
		if len(ds) == 0 {
			return "-"
		}
		ds = slices.Clone(ds)
		slices.Sort(ds)
		return ds[min(len(ds)-1, int(float64(len(ds))*p))].Round(time.Millisecond).String()
	}
	mib := func(k int64) string { return fmt.Sprintf("%.0f", float64(k)/1024) }
	first, peak, ends, idles := make([]string, len(end)), make([]string, len(end)), make([]string, len(end)), make([]string, len(end))
	for i, samples := range s.rss {
		first[i], peak[i], ends[i], idles[i] = mib(samples[0]), mib(slices.Max(samples)), mib(end[i]), mib(idle[i])
	}
	n := s.serves
	done := len(r.review)
	engine := o.engine
	if engine == "temporal" {
		engine = fmt.Sprintf("temporal, %d worker(s)", o.workers)
	}
	fmt.Printf("sessions completed %d of %d (failed %d%s), in %s: %.1f sessions/s\n",
		done, o.sessions, r.failed, firstOf(r.firstFailure), r.wall.Round(time.Millisecond), float64(done)/r.wall.Seconds())
	fmt.Printf("create→review p50 %s p99 %s; approve→done p50 %s p99 %s\n",
		pct(r.review, .5), pct(r.review, .99), pct(r.execute, .5), pct(r.execute, .99))
	fmt.Printf("serve RSS MiB (per serve): start %s, peak %s, at the end %s, after the idle timeout %s\n",
		strings.Join(first[:n], "/"), strings.Join(peak[:n], "/"), strings.Join(ends[:n], "/"), strings.Join(idles[:n], "/"))
	if len(end) > n {
		fmt.Printf("worker RSS MiB (per worker): start %s, peak %s, at the end %s, after the idle timeout %s\n",
			strings.Join(first[n:], "/"), strings.Join(peak[n:], "/"), strings.Join(ends[n:], "/"), strings.Join(idles[n:], "/"))
	}
	fmt.Printf("PostgreSQL connections at most %d; extra event streams connected %d; 429 answers %d\n", s.maxConn, r.watchers, r.refused)
	fmt.Printf("\n| %d × %s, %d serve(s), %d in flight, %d extra streams | %.1f | %s / %s | %s / %s | %s → %s → %s → %s | %d |\n",
		o.sessions, engine, o.serves, o.concurrency, r.watchers, float64(done)/r.wall.Seconds(),
		pct(r.review, .5), pct(r.review, .99), pct(r.execute, .5), pct(r.execute, .99),
		strings.Join(first[:n], "/"), strings.Join(peak[:n], "/"), strings.Join(ends[:n], "/"), strings.Join(idles[:n], "/"), s.maxConn)
}

func firstOf(f string) string {
	if f == "" {
		return ""
	}
	return "; first: " + f
}
