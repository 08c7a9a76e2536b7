package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"

	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/tool"
)

// Recorder keeps the checkpoints of one session's turns. It is safe for
// concurrent use.
type Recorder struct {
	ws       *tool.Workspace
	store    session.CheckpointStore
	maxFile  int64
	maxFiles int
	maxBytes int64
	log      *slog.Logger

	mu        sync.Mutex
	sessionID string
	prompt    string
	turn      int             // 0 until the turn's first change is recorded
	seen      map[string]bool // paths whose prior state this turn already has
	cache     map[string]cached
	warned    bool          // the "tree too big" note was logged
	warming   chan struct{} // closed when Warm's fill ends; nil before Warm
	// shared is the tree before the oldest whole-tree call still running,
	// used by every whole-tree call that starts while it runs (sub-agents
	// run at once): a later snapshot would hold an earlier call's edits as
	// the files' prior state. sharedBy counts the calls using it.
	shared   *snapshot
	sharedBy int
}

// Option configures New.
type Option func(*Recorder)

// WithMaxFileSize sets the largest file whose content is kept
// (DefaultMaxFileSize).
func WithMaxFileSize(n int64) Option { return func(r *Recorder) { r.maxFile = n } }

// WithTreeLimits sets how many files a tree may hold for shell calls to be
// tracked, and how many bytes of their content are cached
// (DefaultMaxTreeFiles, DefaultMaxTreeBytes).
func WithTreeLimits(files int, bytes int64) Option {
	return func(r *Recorder) { r.maxFiles, r.maxBytes = files, bytes }
}

// WithLogger sets where failures to record are logged; recording fails
// open (the tool still runs) since a checkpoint is a convenience.
func WithLogger(l *slog.Logger) Option { return func(r *Recorder) { r.log = l } }

// New returns a Recorder that reads files through ws and saves into store.
func New(ws *tool.Workspace, store session.CheckpointStore, opts ...Option) *Recorder {
	r := &Recorder{ws: ws, store: store, maxFile: DefaultMaxFileSize, maxFiles: DefaultMaxTreeFiles,
		maxBytes: DefaultMaxTreeBytes, log: slog.New(slog.DiscardHandler), cache: map[string]cached{}}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Begin starts a turn of sessionID: the next change recorded opens a new
// turn number. prompt's first line labels the turn.
func (r *Recorder) Begin(sessionID, prompt string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sessionID, r.prompt, r.turn, r.seen = sessionID, firstLine(prompt), 0, map[string]bool{}
}

// Warm fills the content cache in the background, so that the first shell
// call of the session does not read the whole tree while the user waits;
// it returns at once. A shell call that comes while the cache fills waits
// for it, then reads only what changed since. Calls after the first do
// nothing; cancelling ctx stops the fill (what was read is kept).
func (r *Recorder) Warm(ctx context.Context) {
	r.mu.Lock()
	if r.warming != nil {
		r.mu.Unlock()
		return
	}
	done := make(chan struct{})
	r.warming = done
	r.mu.Unlock()
	go func() {
		defer close(done)
		_, _ = r.fill(ctx)
	}()
}

// Change is one call being recorded; After completes it.
type Change struct {
	r      *Recorder
	paths  []string  // root-relative, slash-separated
	before *snapshot // the tree before a shell call, nil otherwise
}

// Before records the prior state of the files a call will change: paths as
// given to the tool, and when tree is set the whole tracked tree. Call
// After on the result once the call has run. Failures are logged.
func (r *Recorder) Before(ctx context.Context, paths []string, tree bool) *Change {
	c := &Change{r: r}
	for _, p := range paths {
		rel, err := r.relPath(p)
		if err != nil {
			continue // the tool will refuse the path itself
		}
		c.paths = append(c.paths, rel)
		if err := r.keepPrior(ctx, rel, nil); err != nil {
			r.log.Warn("checkpoint: could not record a file before a change; undo will not cover it", "path", rel, "err", err)
		}
	}
	if tree {
		snap, err := r.treeBefore()
		if err != nil {
			r.mu.Lock()
			warned := r.warned
			r.warned = true
			r.mu.Unlock()
			if !warned {
				r.log.Warn("checkpoint: shell commands are not covered by undo in this workdir", "err", err)
			}
		}
		c.before = snap
	}
	return c
}

// After records what the call left: the hash of each file it named, and
// for a shell call the prior state and new hash of every file whose size,
// mtime or mode changed.
func (c *Change) After(ctx context.Context) {
	r := c.r
	for _, rel := range c.paths {
		if err := r.keepAfter(ctx, rel); err != nil {
			r.log.Warn("checkpoint: could not record a file after a change", "path", rel, "err", err)
		}
	}
	if c.before == nil {
		return
	}
	defer r.treeDone()
	after, _, err := r.walk(c.before.ignores)
	if err != nil {
		r.log.Warn("checkpoint: could not compare the tree after a command", "err", err)
		return
	}
	for _, rel := range c.before.changed(after) {
		if _, had := c.before.files[rel]; !had {
			if st, ok := after[rel]; ok && !c.before.madeSince(st) {
				r.log.Warn("checkpoint: a file a command moved or copied in keeping its old time is not covered by undo",
					"path", rel)
				continue
			}
		}
		prior := c.before.prior(rel)
		if err := r.keepPrior(ctx, rel, &prior); err != nil {
			r.log.Warn("checkpoint: could not record a file a command changed", "path", rel, "err", err)
			continue
		}
		if err := r.keepAfter(ctx, rel); err != nil {
			r.log.Warn("checkpoint: could not record a file a command changed", "path", rel, "err", err)
		}
	}
}

// treeBefore returns the tree before a whole-tree call: a new snapshot, or
// the one of a whole-tree call still running. Each success is matched by a
// treeDone when the call's After ends.
func (r *Recorder) treeBefore() (*snapshot, error) {
	r.mu.Lock()
	if r.shared != nil {
		r.sharedBy++
		snap := r.shared
		r.mu.Unlock()
		return snap, nil
	}
	r.mu.Unlock()
	snap, err := r.snapshot()
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.shared != nil {
		// Another call's snapshot was taken meanwhile; both are from
		// before either call ran, and one is kept.
		r.sharedBy++
		return r.shared, nil
	}
	r.shared, r.sharedBy = snap, 1
	return snap, nil
}

func (r *Recorder) treeDone() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sharedBy--; r.sharedBy == 0 {
		r.shared = nil
	}
}

// relPath is a tool's path as stored: relative to the root, symlinks of the
// moment resolved, slash-separated.
func (r *Recorder) relPath(p string) (string, error) {
	abs, err := r.ws.Resolve(p)
	if err != nil {
		return "", err
	}
	rel := r.ws.Rel(abs)
	if rel == "." || filepath.IsAbs(rel) {
		return "", fmt.Errorf("path %q is not a file inside the workspace", p)
	}
	return slash(rel), nil
}

// prior is a file's state before a change.
type prior struct {
	existed  bool
	content  []byte
	mode     fs.FileMode
	tooLarge bool
}

// turnFor returns the turn number to record under, opening one when this
// is the turn's first change, and whether rel's prior state is already kept.
func (r *Recorder) turnFor(ctx context.Context, rel string) (sessionID, prompt string, turn int, seen bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sessionID == "" {
		return "", "", 0, false, errors.New("no turn has begun")
	}
	if r.turn == 0 {
		cps, err := r.store.Checkpoints(ctx, r.sessionID)
		if err != nil {
			return "", "", 0, false, err
		}
		last := 0
		for _, c := range cps {
			last = max(last, c.Turn)
		}
		r.turn = last + 1
	}
	return r.sessionID, r.prompt, r.turn, r.seen[rel], nil
}

// keepPrior saves rel's prior state the first time this turn touches it:
// p when given (a shell call's snapshot), else the file as it is now.
func (r *Recorder) keepPrior(ctx context.Context, rel string, p *prior) error {
	sid, prompt, turn, seen, err := r.turnFor(ctx, rel)
	if err != nil || seen {
		return err
	}
	if p == nil {
		now, err := r.readPrior(rel)
		if err != nil {
			return err
		}
		p = &now
	}
	cp := session.Checkpoint{Turn: turn, Path: rel, Prompt: prompt, Existed: p.existed, Content: p.content,
		Mode: uint32(p.mode.Perm()), TooLarge: p.tooLarge, AfterExists: p.existed}
	if p.existed && !p.tooLarge {
		cp.AfterHash = hashOf(p.content)
	}
	if err := r.store.SaveCheckpoint(ctx, sid, cp); err != nil {
		return err
	}
	r.mu.Lock()
	r.seen[rel] = true
	r.mu.Unlock()
	return nil
}

// readPrior reads rel as it is now. Only a regular file (or nothing) can be
// restored; anything else is kept as too large to restore, so undo reports
// it instead of guessing.
func (r *Recorder) readPrior(rel string) (prior, error) {
	fi, err := r.ws.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return prior{}, nil
	}
	if err != nil {
		return prior{}, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > r.maxFile {
		return prior{existed: true, mode: fi.Mode(), tooLarge: true}, nil
	}
	data, truncated, err := r.ws.ReadFile(rel, r.maxFile)
	if err != nil {
		return prior{}, err
	}
	if truncated {
		return prior{existed: true, mode: fi.Mode(), tooLarge: true}, nil
	}
	return prior{existed: true, content: data, mode: fi.Mode()}, nil
}

// keepAfter records the state the agent left rel in.
func (r *Recorder) keepAfter(ctx context.Context, rel string) error {
	sid, _, turn, seen, err := r.turnFor(ctx, rel)
	if err != nil || !seen {
		// Without its prior state a file has no checkpoint to complete:
		// an after-only row would read as "did not exist" and undo would
		// delete the file.
		return err
	}
	st, err := stateOf(r.ws, rel)
	if err != nil {
		return err
	}
	return r.store.SaveCheckpoint(ctx, sid, session.Checkpoint{Turn: turn, Path: rel, AfterExists: st.exists, AfterHash: st.hash})
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}
