package checkpoint_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"

	"github.com/harness9/harness9/checkpoint"
)

// Red-team tests of the background warm-up: run them with -race.

// While the cache warms, a file of the tree is swapped again and again
// for a FIFO, a link to a secret outside the workdir and a link to a
// device, and write_file calls are recorded: the warm-up ends, the first
// shell call does not hang, no checkpoint holds the secret's bytes, and
// undo puts the written files back.
func TestWarmSurvivesSwapsAndConcurrentEdits(t *testing.T) {
	f := setup(t)
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("OUTSIDE-SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		f.write(t, filepath.Join("d", strconv.Itoa(i)+".txt"), "v1 "+strconv.Itoa(i), 0o644)
	}
	f.write(t, "swap.txt", "regular", 0o644)
	if err := syscall.Mkfifo(filepath.Join(f.dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(f.dir, "leak.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(outside), filepath.Join(f.dir, "leakdir")); err != nil {
		t.Fatal(err)
	}

	stop := make(chan struct{})
	var swapper sync.WaitGroup
	swapper.Go(func() {
		tmp := filepath.Join(f.dir, "swap.tmp")
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.Remove(tmp)
			switch i % 4 {
			case 0:
				_ = syscall.Mkfifo(tmp, 0o644)
			case 1:
				_ = os.Symlink(outside, tmp)
			case 2:
				_ = os.Symlink("/dev/zero", tmp)
			case 3:
				_ = os.WriteFile(tmp, []byte("regular again"), 0o644)
			}
			_ = os.Rename(tmp, filepath.Join(f.dir, "swap.txt"))
		}
	})

	f.rec.Begin(f.id, "edit while warming")
	f.rec.Warm(context.Background())
	var edits sync.WaitGroup
	for i := range 4 {
		edits.Go(func() {
			for j := range 10 {
				name := filepath.Join("d", strconv.Itoa(i*10+j)+".txt")
				c := f.rec.Before(context.Background(), []string{name}, false)
				_ = os.WriteFile(filepath.Join(f.dir, name), []byte("edited"), 0o644)
				c.After(context.Background())
			}
		})
	}
	edits.Wait()
	// A shell call: waits for the warm-up, which must have ended.
	f.change(t, nil, true, func() {
		_ = os.WriteFile(filepath.Join(f.dir, "d", "299.txt"), []byte("by the command"), 0o644)
	})
	close(stop)
	swapper.Wait()

	cps, err := f.store.Checkpoints(context.Background(), f.id)
	if err != nil {
		t.Fatal(err)
	}
	for _, cp := range cps {
		if bytes.Contains(cp.Content, []byte("OUTSIDE-SECRET")) {
			t.Errorf("checkpoint of %s holds the secret outside the workdir", cp.Path)
		}
	}
	_ = os.Remove(filepath.Join(f.dir, "swap.txt"))
	f.rewind(t, 1, func(string) bool { return true })
	for i := range 40 {
		if got := string(mustRead(t, filepath.Join(f.dir, "d", strconv.Itoa(i)+".txt"))); got != "v1 "+strconv.Itoa(i) {
			t.Errorf("d/%d.txt = %q after undo", i, got)
		}
	}
	if got := string(mustRead(t, filepath.Join(f.dir, "d", "299.txt"))); got != "v1 299" {
		t.Errorf("d/299.txt = %q after undo", got)
	}
	if got := string(mustRead(t, outside)); got != "OUTSIDE-SECRET" {
		t.Errorf("the file outside was changed: %q", got)
	}
}

// A tree over the file limit: the warm-up gives up, shell calls are not
// covered, and a write_file still is.
func TestWarmOverTheFileLimit(t *testing.T) {
	f := setup(t)
	f.rec = checkpoint.New(f.ws, f.store, checkpoint.WithTreeLimits(20, 1<<20))
	for i := range 25 {
		f.write(t, strconv.Itoa(i)+".txt", "v1", 0o644)
	}
	f.rec.Begin(f.id, "big tree")
	f.rec.Warm(context.Background())
	f.change(t, []string{"0.txt"}, true, func() {
		_ = os.WriteFile(filepath.Join(f.dir, "0.txt"), []byte("v2"), 0o644)
		_ = os.WriteFile(filepath.Join(f.dir, "1.txt"), []byte("v2"), 0o644)
	})
	f.rewind(t, 1, func(string) bool { return true })
	if got := string(mustRead(t, filepath.Join(f.dir, "0.txt"))); got != "v1" {
		t.Errorf("0.txt = %q after undo", got)
	}
}
