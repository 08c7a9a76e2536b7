package checkpoint_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/checkpoint"
)

// BenchmarkShellCall5k measures what a shell call costs in a tree of 5,000
// files (~4 KB each, 100 directories): the stat walk before and after and
// the content cache, warm (the usual case: the cache is filled once).
func BenchmarkShellCall5k(b *testing.B) {
	f := fiveK(b)
	f.rec.Begin(f.id, "bench")
	f.rec.Before(context.Background(), nil, true).After(context.Background()) // fill the cache
	b.ResetTimer()
	for range b.N {
		f.rec.Before(context.Background(), nil, true).After(context.Background())
	}
}

// BenchmarkShellCall5kCold is the first shell call of a process: the
// content cache is filled (5,000 files, ~20 MB read).
func BenchmarkShellCall5kCold(b *testing.B) {
	f := fiveK(b)
	b.ResetTimer()
	for range b.N {
		rec := checkpoint.New(f.ws, f.store)
		rec.Begin(f.id, "bench")
		rec.Before(context.Background(), nil, true).After(context.Background())
	}
}

func fiveK(b *testing.B) *fixture {
	f := setup(b)
	content := strings.Repeat("x", 4000)
	for i := range 5000 {
		p := filepath.Join(f.dir, fmt.Sprintf("d%03d/f%04d.txt", i%100, i))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return f
}
