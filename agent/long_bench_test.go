package agent_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/lib/longrun"
	"github.com/harness9/harness9/llm/openai"
	"github.com/harness9/harness9/session/sqlite"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

var (
	longTurns = flag.Int("longrun.turns", 10000, "turns of BenchmarkLongSession")
	longHeap  = flag.String("longrun.heapprofile", "", "write the live heap at the end of BenchmarkLongSession, the engine still held, to this file")
)

// BenchmarkLongSession runs one session of -longrun.turns read_file turns
// (10,000 unless told) in this process, as a user's long session runs: one
// engine, one provider, one SQLite store, no resume, no garbage collection
// forced before or during the run. The scripted model is on the real
// OpenAI wire (internal/lib/longrun). It reports the harness's time per turn
// (from an answer sent to the next request handed to the HTTP client) in
// the first and the last tenth of the run and their ratio, as wall time
// (mean and median) and as the process's CPU time, which a busy machine
// does not inflate; the request's transfer in the same tenths; the share
// of the process's CPU the garbage collector took in each; and the live
// heap the session holds per message at the end.
// Run it once: go test ./agent/ -run '^$' -bench LongSession -benchtime 1x
func BenchmarkLongSession(b *testing.B) {
	turns := *longTurns
	for range b.N {
		r := runLong(b, turns)
		b.ReportMetric(ms(r.first.Harness), "first-ms/turn")
		b.ReportMetric(ms(r.last.Harness), "last-ms/turn")
		b.ReportMetric(float64(r.last.Harness)/float64(r.first.Harness), "last/first")
		b.ReportMetric(ms(r.first.CPU), "first-cpu-ms/turn")
		b.ReportMetric(ms(r.last.CPU), "last-cpu-ms/turn")
		b.ReportMetric(float64(r.last.CPU)/float64(r.first.CPU), "cpu-last/first")
		b.ReportMetric(ms(r.first.Median), "first-median-ms")
		b.ReportMetric(ms(r.last.Median), "last-median-ms")
		b.ReportMetric(float64(r.last.Median)/float64(r.first.Median), "median-last/first")
		b.ReportMetric(ms(r.first.Transfer), "first-xfer-ms")
		b.ReportMetric(ms(r.last.Transfer), "last-xfer-ms")
		b.ReportMetric(100*r.gcFirst, "first-gc-%")
		b.ReportMetric(100*r.gcLast, "last-gc-%")
		b.ReportMetric(float64(r.heap)/float64(r.messages), "heap-B/msg")
		b.ReportMetric(float64(r.peak)/(1<<20), "peak-heap-MB")
	}
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

type longResult struct {
	first, last     longrun.Tenth
	gcFirst, gcLast float64
	heap            uint64 // live heap the session held at the end
	peak            uint64 // the largest heap goal seen at a tenth's edge
	messages        int
}

// gcClock reads the runtime's CPU classes: the garbage collector's time and
// everything the program used.
type gcClock struct{ s []metrics.Sample }

func newGCClock() *gcClock {
	return &gcClock{s: []metrics.Sample{
		{Name: "/cpu/classes/gc/total:cpu-seconds"},
		{Name: "/cpu/classes/user:cpu-seconds"},
		{Name: "/cpu/classes/scavenge/total:cpu-seconds"},
		{Name: "/gc/heap/goal:bytes"},
	}}
}

// read returns the GC's and the program's CPU seconds so far and the heap goal.
func (c *gcClock) read() (gc, used float64, goal uint64) {
	metrics.Read(c.s)
	gc = c.s[0].Value.Float64()
	return gc, gc + c.s[1].Value.Float64() + c.s[2].Value.Float64(), c.s[3].Value.Uint64()
}

func runLong(b *testing.B, turns int) longResult {
	b.StopTimer()
	workdir, home := b.TempDir(), b.TempDir()
	notes := strings.Repeat("a line of the notes the model keeps reading\n", 6)
	if err := os.WriteFile(filepath.Join(workdir, "notes.txt"), []byte(notes), 0o600); err != nil {
		b.Fatal(err)
	}
	clock := newGCClock()
	tenth := turns / 10
	var marks [4]struct{ gc, used float64 }
	var peak uint64
	model := &longrun.Model{Turns: turns, Path: "notes.txt", CPU: longrun.ProcessCPU, OnRequest: func(n int) {
		k := -1
		switch n {
		case 0:
			k = 0
		case tenth:
			k = 1
		case turns - tenth:
			k = 2
		case turns:
			k = 3
		}
		if k >= 0 {
			var goal uint64
			marks[k].gc, marks[k].used, goal = clock.read()
			peak = max(peak, goal)
		}
	}}
	srv := httptest.NewUnstartedServer(model)
	srv.Listener = model.Listen(srv.Listener)
	srv.Start()
	defer srv.Close()
	ws, err := tool.NewWorkspace(workdir, tool.WithHome(home))
	if err != nil {
		b.Fatal(err)
	}
	st, err := sqlite.Open(filepath.Join(b.TempDir(), "long.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	client := &http.Client{Transport: model.Transport(http.DefaultTransport)}
	eng, err := agent.New(openai.New(openai.WithBaseURL(srv.URL+"/v1"), openai.WithAPIKey("sk-bench"), openai.WithHTTPClient(client)),
		agent.WithStore(st), agent.WithModel("gpt-4o"), agent.WithWorkdir(workdir), agent.WithPlanFiles(home),
		agent.WithTools(builtin.All(ws)...), agent.WithMaxTurns(turns+2), agent.WithContextWindow(1<<40))
	if err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	var status agent.RunStatus
	for ev := range eng.Run(context.Background(), "read notes.txt again and again") {
		if d, ok := ev.(agent.Done); ok {
			status = d.Status
		}
	}
	b.StopTimer()
	if status != agent.RunCompleted {
		b.Fatalf("run ended %s", status)
	}
	calls := model.Calls()
	if len(calls) != turns+1 {
		b.Fatalf("the model was called %d times, want %d", len(calls), turns+1)
	}
	r := longResult{messages: 2*turns + 2, peak: peak}
	if r.first, r.last, err = longrun.Tenths(calls); err != nil {
		b.Fatal(err)
	}
	share := func(a, z int) float64 {
		return (marks[z].gc - marks[a].gc) / (marks[z].used - marks[a].used)
	}
	r.gcFirst, r.gcLast = share(0, 1), share(2, 3)
	// What the session holds: the live heap with the engine, less the live
	// heap once it is gone.
	live := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	with := live()
	if *longHeap != "" {
		f, err := os.Create(*longHeap)
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
	runtime.KeepAlive(eng)
	eng = nil
	without := live()
	if with > without {
		r.heap = with - without
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "long session: %d turns, bodies %d → %d bytes\n", turns, r.first.Bytes, r.last.Bytes)
	}
	return r
}
