package checkpoint_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/harness9/harness9/checkpoint"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/memstore"
	"github.com/harness9/harness9/tool"
)

type fixture struct {
	dir   string
	ws    *tool.Workspace
	store *memstore.Store
	id    string
	rec   *checkpoint.Recorder
}

func setup(t testing.TB) *fixture {
	t.Helper()
	dir := t.TempDir()
	ws, err := tool.NewWorkspace(dir, tool.WithHome(""))
	if err != nil {
		t.Fatal(err)
	}
	st := memstore.New()
	s := &session.Session{Workdir: dir}
	if err := st.Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return &fixture{dir: dir, ws: ws, store: st, id: s.ID, rec: checkpoint.New(ws, st)}
}

func (f *fixture) write(t *testing.T, name, content string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(f.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// change runs fn as a tool call that changes paths (or the tree).
func (f *fixture) change(t *testing.T, paths []string, tree bool, fn func()) {
	t.Helper()
	c := f.rec.Before(context.Background(), paths, tree)
	fn()
	c.After(context.Background())
}

func (f *fixture) rewind(t *testing.T, to int, overwrite func(string) bool) checkpoint.Report {
	t.Helper()
	rep, err := checkpoint.Rewind(context.Background(), f.ws, f.store, f.id, checkpoint.Request{To: to, Overwrite: overwrite})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRewindRestoresBytesModesAndDeletesNewFiles(t *testing.T) {
	f := setup(t)
	orig := "line 1\r\nno newline at end\x00\xff"
	f.write(t, "a.sh", orig, 0o751)
	f.rec.Begin(f.id, "first turn\nmore")
	f.change(t, []string{"a.sh"}, false, func() { f.write(t, "a.sh", "changed", 0o644) })
	f.change(t, []string{"new/b.txt"}, false, func() { f.write(t, "new/b.txt", "b", 0o644) })
	// The same file changed twice in a turn keeps its first prior state.
	f.change(t, []string{"a.sh"}, false, func() { f.write(t, "a.sh", "changed again", 0o644) })

	rep := f.rewind(t, 1, nil)
	if got := mustRead(t, filepath.Join(f.dir, "a.sh")); string(got) != orig {
		t.Errorf("a.sh = %q, want %q", got, orig)
	}
	if fi, _ := os.Stat(filepath.Join(f.dir, "a.sh")); fi.Mode().Perm() != 0o751 {
		t.Errorf("a.sh mode = %v, want 0751", fi.Mode().Perm())
	}
	if _, err := os.Stat(filepath.Join(f.dir, "new/b.txt")); !os.IsNotExist(err) {
		t.Errorf("new/b.txt should be deleted: %v", err)
	}
	if len(rep.Restored) != 1 || len(rep.Deleted) != 1 || len(rep.Skipped) != 0 {
		t.Errorf("report = %+v", rep)
	}
	// Undone turns are not undone twice.
	if rep := f.rewind(t, 1, nil); len(rep.Turns) != 0 {
		t.Errorf("second rewind undid %v again", rep.Turns)
	}
}

func TestShellChangesAreDetectedFromTheTree(t *testing.T) {
	f := setup(t)
	f.write(t, "keep.txt", "keep", 0o644)
	f.write(t, "src/x.go", "package x\n", 0o644)
	f.write(t, "gone.txt", "gone", 0o600)
	f.write(t, ".gitignore", "build/\n", 0o644)
	f.write(t, "build/out.bin", "old build", 0o644)
	f.rec.Begin(f.id, "sed it")
	f.change(t, nil, true, func() {
		// What `sed -i`, `rm` and `touch` would do: a new inode, a deletion, a new file.
		p := filepath.Join(f.dir, "src/x.go")
		_ = os.Remove(p)
		f.write(t, "src/x.go", "package y\n", 0o644)
		_ = os.Remove(filepath.Join(f.dir, "gone.txt"))
		f.write(t, "created.txt", "new", 0o644)
		f.write(t, "build/out.bin", "new build", 0o644)
	})
	rep := f.rewind(t, 1, nil)
	if got := mustRead(t, filepath.Join(f.dir, "src/x.go")); string(got) != "package x\n" {
		t.Errorf("src/x.go = %q", got)
	}
	if got := mustRead(t, filepath.Join(f.dir, "gone.txt")); string(got) != "gone" {
		t.Errorf("gone.txt = %q", got)
	}
	if fi, _ := os.Stat(filepath.Join(f.dir, "gone.txt")); fi.Mode().Perm() != 0o600 {
		t.Errorf("gone.txt mode = %v, want 0600", fi.Mode().Perm())
	}
	if _, err := os.Stat(filepath.Join(f.dir, "created.txt")); !os.IsNotExist(err) {
		t.Errorf("created.txt should be deleted")
	}
	// Ignored outputs are not tracked (documented).
	if got := mustRead(t, filepath.Join(f.dir, "build/out.bin")); string(got) != "new build" {
		t.Errorf("an ignored file was rewound: %q", got)
	}
	if got := mustRead(t, filepath.Join(f.dir, "keep.txt")); string(got) != "keep" {
		t.Errorf("keep.txt = %q", got)
	}
	if len(rep.Restored) != 2 || len(rep.Deleted) != 1 {
		t.Errorf("report = %+v", rep)
	}
}

func TestUserChangesAreNotTouchedUnlessOverwritten(t *testing.T) {
	f := setup(t)
	f.write(t, "a.txt", "before", 0o644)
	f.rec.Begin(f.id, "edit")
	f.change(t, []string{"a.txt"}, false, func() { f.write(t, "a.txt", "agent", 0o644) })
	f.write(t, "a.txt", "user's work", 0o644)

	conflicts, _ := f.store.Checkpoints(context.Background(), f.id)
	if c := checkpoint.Conflicts(f.ws, conflicts, 1); len(c) != 1 || c[0] != "a.txt" {
		t.Errorf("Conflicts = %v, want [a.txt]", c)
	}
	rep := f.rewind(t, 1, nil)
	if got := mustRead(t, filepath.Join(f.dir, "a.txt")); string(got) != "user's work" {
		t.Fatalf("undo overwrote the user's change: %q", got)
	}
	if len(rep.Skipped) != 1 || !rep.Skipped[0].Changed {
		t.Errorf("report = %+v", rep)
	}

	// Another turn, overwritten on request.
	f.rec.Begin(f.id, "edit again")
	f.change(t, []string{"a.txt"}, false, func() { f.write(t, "a.txt", "agent 2", 0o644) })
	f.write(t, "a.txt", "user again", 0o644)
	f.rewind(t, 2, func(string) bool { return true })
	if got := mustRead(t, filepath.Join(f.dir, "a.txt")); string(got) != "user's work" {
		t.Errorf("overwrite: a.txt = %q, want the state before turn 2", got)
	}
}

// A model that plants symlinks where it wrote files must not get undo to
// write or delete outside the workdir.
func TestRewindNeverWritesThroughPlantedLinks(t *testing.T) {
	f := setup(t)
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim.txt")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "x.txt"), []byte("outside x"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.write(t, "a.txt", "before", 0o644)
	f.rec.Begin(f.id, "write then plant")
	f.change(t, []string{"a.txt"}, false, func() { f.write(t, "a.txt", "agent", 0o644) })
	f.change(t, []string{"sub/x.txt"}, false, func() { f.write(t, "sub/x.txt", "new", 0o644) })
	// Later in the turn (a shell the tree walk does not follow links in):
	// a.txt becomes a link to a file outside, sub a link to a dir outside.
	_ = os.Remove(filepath.Join(f.dir, "a.txt"))
	if err := os.Symlink(victim, filepath.Join(f.dir, "a.txt")); err != nil {
		t.Fatal(err)
	}
	_ = os.RemoveAll(filepath.Join(f.dir, "sub"))
	if err := os.Symlink(outside, filepath.Join(f.dir, "sub")); err != nil {
		t.Fatal(err)
	}

	rep := f.rewind(t, 1, func(string) bool { return true }) // even when forced
	if got := mustRead(t, victim); string(got) != "precious" {
		t.Fatalf("undo wrote through a link outside the workdir: %q", got)
	}
	if got := mustRead(t, filepath.Join(outside, "x.txt")); string(got) != "outside x" {
		t.Fatalf("undo changed a file outside the workdir: %q", got)
	}
	fi, err := os.Lstat(filepath.Join(f.dir, "a.txt"))
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("a.txt should be a regular file again: %v %v", fi, err)
	}
	if got := mustRead(t, filepath.Join(f.dir, "a.txt")); !bytes.Equal(got, []byte("before")) {
		t.Errorf("a.txt = %q", got)
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0].Path != "sub/x.txt" {
		t.Errorf("sub/x.txt (behind a link outside) should be skipped: %+v", rep)
	}
}

// A cache warmed before the session's first shell call restores what the
// tree held when the call started, not when the cache was filled; a
// cancelled warm-up leaves the call to read what it did not.
func TestWarmCacheKeepsTheStateBeforeTheCall(t *testing.T) {
	for _, cancelled := range []bool{false, true} {
		f := setup(t)
		for i := range 50 {
			f.write(t, filepath.Join("d", strconv.Itoa(i)+".txt"), "v1", 0o644)
		}
		ctx, cancel := context.WithCancel(context.Background())
		if cancelled {
			cancel()
		}
		f.rec.Warm(ctx)
		f.rec.Warm(ctx) // a second call does nothing
		f.rec.Begin(f.id, "edit")
		f.change(t, nil, true, func() {}) // waits for the warm-up; nothing changes
		f.write(t, "d/7.txt", "v2 by the user", 0o644)
		f.rec.Begin(f.id, "sed")
		f.change(t, nil, true, func() {
			for _, n := range []string{"d/7.txt", "d/8.txt"} {
				f.write(t, n, "v3 by the command", 0o644)
			}
		})
		cancel()
		f.rewind(t, 1, func(string) bool { return true })
		for n, want := range map[string]string{"d/7.txt": "v2 by the user", "d/8.txt": "v1"} {
			if got := mustRead(t, filepath.Join(f.dir, n)); string(got) != want {
				t.Errorf("cancelled=%v: %s = %q, want %q", cancelled, n, got, want)
			}
		}
	}
}

// Two whole-tree calls running at once (parallel sub-agents) that both
// change a file: whichever finishes first, undo puts back the file as it
// was before either ran, not as the first one left it.
func TestOverlappingTreeCallsKeepTheOldestPriorState(t *testing.T) {
	f := setup(t)
	f.write(t, "f.txt", "original", 0o644)
	f.rec.Begin(f.id, "two sub-agents")
	a := f.rec.Before(context.Background(), nil, true)
	f.write(t, "f.txt", "edited by A", 0o644)
	b := f.rec.Before(context.Background(), nil, true) // starts after A's edit
	f.write(t, "f.txt", "edited by B", 0o644)
	f.write(t, "b.txt", "made by B", 0o644)
	b.After(context.Background())
	a.After(context.Background())
	f.rewind(t, 1, nil)
	if got := mustRead(t, filepath.Join(f.dir, "f.txt")); string(got) != "original" {
		t.Errorf("f.txt = %q after the undo, want %q", got, "original")
	}
	if _, err := os.Stat(filepath.Join(f.dir, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("b.txt survived the undo: %v", err)
	}
	// Both calls are over: the next call takes a snapshot of its own.
	f.rec.Begin(f.id, "next")
	f.change(t, nil, true, func() { f.write(t, "f.txt", "later", 0o644) })
	f.rewind(t, 2, nil)
	if got := mustRead(t, filepath.Join(f.dir, "f.txt")); string(got) != "original" {
		t.Errorf("f.txt = %q after undoing the later call, want %q", got, "original")
	}
}
