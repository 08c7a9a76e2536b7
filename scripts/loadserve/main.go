//go:build unix

// Command loadserve drives `harness9 serve` on PostgreSQL with many
// sessions and reports the numbers of docs/service.md's load table: it
// starts the serve processes (and, with -engine temporal, the workers),
// creates -sessions sessions in Plan Mode with a scripted model, approves
// each plan when it is ready and waits for the run to complete, while
// -streams extra event-stream clients stay connected; it samples each
// serve's resident memory and the database's connections throughout, and
// once more after -idle has released every session.
//
//	go run ./scripts/loadserve -bin $(which harness9) -store postgres://… [-sessions 1000] [-streams 200] [-serves 1]
//	go run ./scripts/loadserve -bin ./harness9-temporal -store postgres://… -engine temporal -temporal-address 127.0.0.1:7233 -workers 3
//
// Several serve processes sit behind one address: a proxy in this process
// sends a new session to the next serve in turn and every later request of
// that session to the same one (the serve holding a session is its one
// writer; another answers 409 busy).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// opts are the command's flags.
type opts struct {
	bin, store, engine, temporal  string
	sessions, concurrency, rounds int
	streams, serves, workers      int
	idle                          time.Duration
}

func main() {
	var o opts
	flag.StringVar(&o.bin, "bin", "harness9", "the harness9 binary (built with -tags temporal for -engine temporal)")
	flag.StringVar(&o.store, "store", "", "PostgreSQL URL of an empty database (required)")
	flag.StringVar(&o.engine, "engine", "local", "serve's engine: local or temporal")
	flag.StringVar(&o.temporal, "temporal-address", "127.0.0.1:7233", "Temporal frontend (with -engine temporal)")
	flag.IntVar(&o.sessions, "sessions", 1000, "sessions to create and drive to completion")
	flag.IntVar(&o.concurrency, "concurrency", 64, "sessions driven at once")
	flag.IntVar(&o.rounds, "rounds", 1, "times the whole load is run on the same serve processes (memory after each round shows a leak)")
	flag.IntVar(&o.streams, "streams", 200, "extra event-stream clients, each on one of the first sessions, connected until the end")
	flag.IntVar(&o.serves, "serves", 1, "serve processes behind one address")
	flag.IntVar(&o.workers, "workers", 1, "harness9 worker processes (with -engine temporal)")
	flag.DurationVar(&o.idle, "idle", 10*time.Second, "serve's --idle-timeout: memory is sampled again once it released every session")
	flag.Parse()
	if o.store == "" {
		fmt.Fprintln(os.Stderr, "loadserve: -store postgres://… is required (an empty database)")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "loadserve:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o opts) error {
	dir, err := os.MkdirTemp("", "loadserve-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	f, err := setup(dir, o)
	if err != nil {
		return err
	}
	var procs []*proc
	defer func() {
		for _, p := range procs {
			p.stop()
		}
	}()
	var backends []*proc
	for range o.serves {
		p, err := startServe(f, o)
		if err != nil {
			return err
		}
		procs = append(procs, p)
		backends = append(backends, p)
	}
	var workers []*proc
	if o.engine == "temporal" {
		for range o.workers {
			w, err := startWorker(f, o)
			if err != nil {
				return err
			}
			procs = append(procs, w)
			workers = append(workers, w)
		}
	}
	url, closeProxy, err := front(backends)
	if err != nil {
		return err
	}
	defer closeProxy()

	s, err := newSampler(ctx, o.store, backends, workers)
	if err != nil {
		return err
	}
	for round := range o.rounds {
		d := &driver{url: url, token: f.token, root: filepath.Join(f.root, fmt.Sprintf("r%d", round))}
		res, err := d.drive(ctx, o)
		if err != nil {
			return err
		}
		end := s.now()
		// Sessions with no run and no stream are released after the idle
		// timeout; the memory after that shows what a finished session
		// keeps.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(o.idle + 5*time.Second):
		}
		fmt.Printf("round %d of %d:\n", round+1, o.rounds)
		report(o, res, s, end, s.now())
	}
	s.stop()
	return nil
}

// files is what setup made.
type files struct {
	home, root, model, token string
	env                      []string
}

// setup writes the data directory (serve's roots, limits and idle timeout
// in config.toml), adds a token and writes the scripted model.
func setup(dir string, o opts) (files, error) {
	f := files{home: filepath.Join(dir, "home"), root: filepath.Join(dir, "repos")}
	for _, d := range []string{f.home, f.root} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return f, err
		}
	}
	f.env = append(os.Environ(), "HARNESS9_HOME="+f.home, "HARNESS9_STORE="+o.store)
	// Limits wide enough that the run measures serve, not its queue: a
	// slot per session in flight, a rate no driver reaches.
	cfg := fmt.Sprintf(`[serve]
roots = [%q]
idle_timeout = %q
max_runs = %d
max_runs_per_token = %d
max_queued = %d
rate = 100000
burst = 100000
max_streams_per_session = 4
`, f.root, o.idle.String(), o.concurrency, o.concurrency, o.sessions)
	if err := os.WriteFile(filepath.Join(f.home, "config.toml"), []byte(cfg), 0o600); err != nil {
		return f, err
	}
	out, err := command(f, o.bin, "serve", "token", "add", "load", "--root", f.root).Output()
	if err != nil {
		return f, fmt.Errorf("serve token add: %w", err)
	}
	f.token = strings.TrimSpace(string(out))
	f.model = filepath.Join(dir, "model.json")
	if err := os.WriteFile(f.model, []byte(script), 0o600); err != nil {
		return f, err
	}
	return f, nil
}

// script plans one step and carries it out: the todo in progress, a file
// written, the todo completed, a closing answer (five model calls, three
// tool calls; no command, so the run measures serve and the store).
const script = `{"turns": [
  {"text": "Plan ready.", "calls": [{"name": "submit_plan", "input": {"title": "Note", "content": "Write a note.", "steps": ["write note.txt"]}}]},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write note.txt", "status": "in_progress"}]}}]},
  {"text": "Writing the note.", "calls": [{"name": "write_file", "input": {"path": "note.txt", "content": "done\n"}}]},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write note.txt", "status": "completed"}]}}]},
  {"text": "The note is written."}
]}`
