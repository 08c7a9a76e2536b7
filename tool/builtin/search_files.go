package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/harness9/harness9/internal/lib/ignore"
	"github.com/harness9/harness9/tool"
)

//go:embed search_files.md
var searchFilesDescription string

const (
	searchDefaultResults = 200
	searchMaxResults     = 2000
	searchMaxLineLen     = 240
	// searchMaxBytes keeps the result under the Registry's default output
	// cap (32 KiB), so a long result is cut at the end, in order, rather
	// than in the middle.
	searchMaxBytes = 28 << 10
	// searchMaxFileSize skips generated blobs, logs and dumps that would
	// dominate the time and rarely hold what the model is looking for.
	searchMaxFileSize = 16 << 20
)

// SearchFilesInput is the input of search_files.
type SearchFilesInput struct {
	Pattern    string `json:"pattern" jsonschema:"Go (RE2) regular expression matched against each line"`
	Path       string `json:"path,omitempty" jsonschema:"directory or file to search, relative to the workspace root (default: the root)"`
	Glob       string `json:"glob,omitempty" jsonschema:"only search files matching this glob, e.g. *.go or src/**/*.ts"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"maximum number of matching lines to return (default 200, max 2000)"`
}

// SearchFiles is the search_files tool.
type SearchFiles struct {
	tool.Spec
	readOnly
	ws       *tool.Workspace
	workers  int
	maxBytes int // output budget; tests raise it to compare full results
}

// NewSearchFiles returns the search_files tool.
func NewSearchFiles(ws *tool.Workspace) *SearchFiles {
	return &SearchFiles{
		Spec:     tool.NewSpec[SearchFilesInput]("search_files", searchFilesDescription),
		ws:       ws,
		workers:  max(2, runtime.GOMAXPROCS(0)),
		maxBytes: searchMaxBytes,
	}
}

// Execute implements tool.Tool.
func (t *SearchFiles) Execute(ctx context.Context, input json.RawMessage) (tool.Result, error) {
	return tool.Run(ctx, t.Name(), input, t.search)
}

// searchJob is one file to search; seq is its position in walk order, so
// results from parallel workers can be put back in path order. A file the
// walk found in a directory it listed carries that open directory and its
// name there; a start file or a linked file only its path (rel), opened
// through the workspace.
type searchJob struct {
	seq  int
	rel  string
	dir  *openDir
	name string
}

type searchResult struct {
	seq    int
	rel    string
	lines  []lineMatch
	binary bool
}

func (t *SearchFiles) search(ctx context.Context, in SearchFilesInput) (tool.Result, error) {
	if in.Pattern == "" {
		return tool.Errorf("search_files: pattern is required"), nil
	}
	m, err := newMatcher(in.Pattern)
	if err != nil {
		return tool.Failed("search_files", err), nil
	}
	limit := in.MaxResults
	switch {
	case limit < 0:
		return tool.Errorf("search_files: max_results must not be negative"), nil
	case limit == 0:
		limit = searchDefaultResults
	case limit > searchMaxResults:
		limit = searchMaxResults
	}
	glob := filepath.ToSlash(in.Glob)
	if glob != "" && !doublestar.ValidatePattern(glob) {
		return tool.Errorf("search_files: glob %q is not a valid pattern (check brackets and braces)", in.Glob), nil
	}
	start, err := t.ws.Resolve(in.Path)
	if err != nil {
		return tool.Failed("search_files", err), nil
	}
	fi, err := t.ws.Stat(start)
	if errors.Is(err, fs.ErrNotExist) {
		return tool.Errorf("search_files: %q does not exist; use glob or list_files to find the right path", in.Path), nil
	}
	if err != nil {
		return tool.Failed("search_files", err), nil
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return tool.Errorf("search_files: %q is not a regular file or a directory; only those can be searched", in.Path), nil
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan searchJob, 256)
	results := make(chan searchResult, 256)
	var wg sync.WaitGroup
	for range t.workers {
		wg.Go(func() { t.worker(ctx, m, limit+1, jobs, results) })
	}
	files := make(chan int, 1) // number of files the walk produced
	go func() {
		defer close(jobs)
		if !fi.IsDir() {
			jobs <- searchJob{seq: 0, rel: t.ws.Rel(start)}
			files <- 1
			return
		}
		files <- t.walk(ctx, start, glob, jobs)
	}()
	go func() {
		wg.Wait()
		close(results)
	}()

	// Collect in walk order: results arrive out of order, are parked until
	// every earlier file is in, and the search stops once `limit` lines
	// are certain.
	var (
		out       strings.Builder
		pending   = map[int]searchResult{}
		next      int
		total     int
		matched   int // files with at least one match
		binaries  int
		truncated bool
	)
	for r := range results {
		pending[r.seq] = r
		for !truncated {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			if r.binary {
				binaries++
			}
			if len(r.lines) > 0 {
				matched++
			}
			for _, l := range r.lines {
				if total == limit || out.Len() > t.maxBytes {
					truncated = true
					cancel()
					break
				}
				total++
				out.WriteString(shownName(r.rel))
				out.WriteByte(':')
				out.WriteString(strconv.Itoa(l.line))
				out.WriteString(": ")
				out.Write(l.text)
				out.WriteByte('\n')
			}
		}
	}
	if err := context.Cause(ctx); err != nil && !truncated {
		return tool.Result{}, err
	}
	nfiles := <-files

	var b strings.Builder
	if total == 0 {
		fmt.Fprintf(&b, "no matches for %q in %s (%s searched", in.Pattern, t.ws.Rel(start), plural(nfiles, "file"))
	} else {
		b.WriteString(out.String())
		if truncated {
			fmt.Fprintf(&b, "\n(first %d matching lines shown, sorted by path; there are more: narrow the pattern, path or glob", total)
			if total == limit {
				b.WriteString(", or raise max_results")
			}
		} else {
			fmt.Fprintf(&b, "\n(%s in %s, sorted by path", plural(total, "matching line"), plural(matched, "file"))
		}
	}
	if binaries > 0 {
		fmt.Fprintf(&b, "; %s skipped", plural(binaries, "binary file"))
	}
	b.WriteString(")")
	return tool.Text(b.String()), nil
}

// walk feeds the files under dir, in path order, to jobs and returns how
// many it sent.
func (t *SearchFiles) walk(ctx context.Context, dir, glob string, jobs chan<- searchJob) int {
	w := walker{ws: t.ws}
	parts, rules := w.start(dir)
	baseOnly := !strings.Contains(glob, "/")
	seq := 0
	var visit func(parent *os.File, parts []string, rules *ignore.Rules, prefix string) bool
	visit = func(parent *os.File, parts []string, rules *ignore.Rules, prefix string) bool {
		if ctx.Err() != nil {
			return false
		}
		f, err := w.open(parent, parts)
		if err != nil {
			return true // unreadable directory: nothing to search in it
		}
		d := newOpenDir(f)
		defer d.release()
		nodes, sub, err := w.list(f, parts, rules)
		if err != nil {
			return true
		}
		for _, n := range nodes {
			name := n.parts[len(n.parts)-1]
			if n.isDir {
				if !n.link && !visit(f, n.parts, sub, prefix+name+"/") {
					return false
				}
				continue
			}
			if glob != "" {
				subject := prefix + name
				if baseOnly {
					subject = name
				}
				if !doublestar.MatchUnvalidated(glob, subject) {
					continue
				}
			}
			j := searchJob{seq: seq, rel: n.rel()}
			if !n.link {
				d.acquire()
				j.dir, j.name = d, name
			}
			select {
			case jobs <- j:
				seq++
			case <-ctx.Done():
				if j.dir != nil {
					d.release()
				}
				return false
			}
		}
		return true
	}
	visit(nil, parts, rules, "")
	return seq
}

// worker searches files from jobs with its own read buffer.
func (t *SearchFiles) worker(ctx context.Context, m *matcher, limit int, jobs <-chan searchJob, results chan<- searchResult) {
	buf := make([]byte, 0, 256<<10)
	for j := range jobs {
		r := searchResult{seq: j.seq, rel: j.rel}
		if ctx.Err() == nil {
			var data []byte
			var ok bool
			data, buf, ok = t.readJob(j, buf)
			switch {
			case !ok:
			case looksBinary(data):
				r.binary = true
			default:
				r.lines = m.find(data, limit)
			}
		}
		if j.dir != nil {
			j.dir.release()
		}
		results <- r // always sent: the collector waits for every seq
	}
}
