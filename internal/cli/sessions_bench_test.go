package cli

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
)

// listing is n sessions as ListSummaries returns them.
func listing(n int) []session.Summary {
	out := make([]session.Summary, n)
	now := time.Now()
	for i := range out {
		out[i] = session.Summary{
			Session: session.Session{ID: fmt.Sprintf("%016x", i), Workdir: "/bench", Model: "openai/gpt-4o",
				Title: fmt.Sprintf("port handler %d", i), Updated: now, MessageCount: 4},
			Status: planning.StatusExecuting, TodosDone: 1, TodosTotal: 2,
		}
	}
	return out
}

// BenchmarkPrintSessions prints a 1000-session list to a real file, as
// `sessions list` does to its standard output: the cost is the write
// calls as much as the formatting.
func BenchmarkPrintSessions(b *testing.B) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	list := listing(1000)
	e := &env{stdout: f, stderr: f}
	for b.Loop() {
		if err := printSessions(e, list, false); err != nil {
			b.Fatal(err)
		}
	}
}

// The list is written in a few large writes, not one per cell.
func TestPrintSessionsWritesInBulk(t *testing.T) {
	w := &countingWriter{}
	if err := printSessions(&env{stdout: w, stderr: w}, listing(1000), false); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(w.buf.String(), "\n"); lines != 1001 {
		t.Fatalf("printed %d lines, want a header and 1000 sessions", lines)
	}
	if w.writes > 20 {
		t.Errorf("%d writes for %d bytes", w.writes, w.buf.Len())
	}
}

type countingWriter struct {
	buf    strings.Builder
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.buf.Write(p)
}
