package checkpoint_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkShellCall5k measures what a shell call costs in a tree of 5,000
// files (~4 KB each, 100 directories): the stat walk before and after and
// the content cache, warm (the usual case: the cache is filled once).
func BenchmarkShellCall5k(b *testing.B) {
	f := setup(b)
	content := strings.Repeat("x", 4000)
	for i := range 5000 {
		p := filepath.Join(f.dir, fmt.Sprintf("d%03d/f%04d.txt", i%100, i))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	f.rec.Begin(f.id, "bench")
	f.rec.Before(context.Background(), nil, true).After(context.Background()) // fill the cache
	b.ResetTimer()
	for range b.N {
		f.rec.Before(context.Background(), nil, true).After(context.Background())
	}
}
