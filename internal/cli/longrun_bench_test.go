package cli_test

import (
	"flag"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/harness9/harness9/internal/lib/longrun"
)

var longTurns = flag.Int("longrun.turns", 10000, "turns of BenchmarkLongSessionBinary")

// gcLine is a GODEBUG=gctrace=1 line: its share of the CPU the collector
// took since the start and the live heap it left, in MB.
var gcLine = regexp.MustCompile(`^gc \d+ @[0-9.]+s (\d+)%: .*->(\d+) MB, \d+ MB goal`)

// BenchmarkLongSessionBinary is BenchmarkLongSession of the agent package
// through the built binary, as users run it: one `harness9 run --json`
// of -longrun.turns read_file turns (10,000 unless told) against the
// scripted model of internal/lib/longrun on the OpenAI wire. It reports the
// harness's time per turn in the first and the last tenth (wall time, mean
// and median, and the CPU time of the harness's threads, which a busy
// machine does not inflate) and their ratios, the process's peak RSS, and the collector's
// share of the CPU over the whole run and the live heap per message after
// its last collection (both from GODEBUG=gctrace=1, whose heap is in
// whole megabytes).
//
//	go test ./internal/cli/ -run '^$' -bench LongSessionBinary -benchtime 1x
func BenchmarkLongSessionBinary(b *testing.B) {
	bin := buildBinary(b, "")
	turns := *longTurns
	for range b.N {
		var pid atomic.Int64
		model := &longrun.Model{Turns: turns, Path: "notes.txt", CPU: func() time.Duration {
			if p := pid.Load(); p != 0 {
				return longrun.ThreadsCPU(int(p))()
			}
			return 0
		}}
		srv := httptest.NewUnstartedServer(model)
		srv.Listener = model.Listen(srv.Listener)
		srv.Start()
		env, workdir := benchEnv(b, srv)
		notes := strings.Repeat("a line of the notes the model keeps reading\n", 6)
		if err := os.WriteFile(filepath.Join(workdir, "notes.txt"), []byte(notes), 0o600); err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(bin, "run", "--json", "-C", workdir, "-m", "openai/gpt-4o",
			"--max-turns", strconv.Itoa(turns+2), "--context-window", strconv.Itoa(1<<40),
			"read notes.txt again and again")
		cmd.Env = append(env, "GODEBUG=gctrace=1")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		b.StartTimer()
		err := cmd.Start()
		if err == nil {
			pid.Store(int64(cmd.Process.Pid))
			err = cmd.Wait()
		}
		b.StopTimer()
		srv.Close()
		if err != nil {
			b.Fatalf("run: %v\n%s", err, tail(stderr.String()))
		}
		calls := model.Calls()
		if len(calls) != turns+1 {
			b.Fatalf("the model was called %d times, want %d\n%s", len(calls), turns+1, tail(stderr.String()))
		}
		first, last, err := longrun.Tenths(calls)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(ms(first.Harness), "first-ms/turn")
		b.ReportMetric(ms(last.Harness), "last-ms/turn")
		b.ReportMetric(float64(last.Harness)/float64(first.Harness), "last/first")
		b.ReportMetric(ms(first.CPU), "first-cpu-ms/turn")
		b.ReportMetric(ms(last.CPU), "last-cpu-ms/turn")
		b.ReportMetric(float64(last.CPU)/float64(first.CPU), "cpu-last/first")
		b.ReportMetric(ms(first.Median), "first-median-ms")
		b.ReportMetric(ms(last.Median), "last-median-ms")
		b.ReportMetric(float64(last.Median)/float64(first.Median), "median-last/first")
		if u, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			b.ReportMetric(float64(u.Maxrss)/1024, "peak-RSS-MB")
		}
		gc, live := -1.0, -1.0
		for line := range strings.Lines(stderr.String()) {
			if m := gcLine.FindStringSubmatch(line); m != nil {
				gc, _ = strconv.ParseFloat(m[1], 64)
				live, _ = strconv.ParseFloat(m[2], 64)
			}
		}
		b.ReportMetric(gc, "gc-%")
		b.ReportMetric(live*(1<<20)/float64(2*turns+2), "heap-B/msg")
	}
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// tail is the end of a long output, for a failure's message.
func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}
