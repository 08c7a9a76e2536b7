package agent_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/session/sqlite"
	"github.com/harness9/harness9/tool"
)

// BenchmarkTurnOverhead measures the harness's own cost per turn: a
// 200-turn scripted session (no network, no model time) where every turn
// calls a cheap tool, with every message written to SQLite. It reports the
// mean and the median time per turn.
func BenchmarkTurnOverhead(b *testing.B) {
	const turns = 200
	noop := tool.New("noop", "does nothing", func(context.Context, struct {
		N int `json:"n"`
	}) (tool.Result, error) {
		return tool.Text("ok"), nil
	}, tool.AsReadOnly())

	var perTurn []time.Duration
	var total time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := b.TempDir()
		store, err := sqlite.Open(filepath.Join(dir, "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		script := make([]scripted.Turn, 0, turns+1)
		for n := range turns {
			script = append(script, scripted.Turn{
				Text:  "Calling the tool once more.",
				Calls: scripted.Calls(scripted.Call("noop", map[string]int{"n": n})),
				Usage: llm.Usage{InputTokens: 1000 + 40*n, OutputTokens: 20},
			})
		}
		script = append(script, scripted.Turn{Text: "done"})
		eng, err := agent.New(scripted.New(script...), agent.WithStore(store), agent.WithWorkdir(dir), agent.WithPlanFiles(dir),
			agent.WithTools(noop), agent.WithMaxTurns(turns+1))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		last := start
		var status agent.RunStatus
		for ev := range eng.Run(context.Background(), "call the tool 200 times") {
			switch ev := ev.(type) {
			case agent.UsageUpdate:
				now := time.Now()
				perTurn = append(perTurn, now.Sub(last))
				last = now
			case agent.Done:
				status = ev.Status
			}
		}
		total += time.Since(start)
		b.StopTimer()
		if status != agent.RunCompleted {
			b.Fatalf("run ended %s", status)
		}
		_ = store.Close()
		b.StartTimer()
	}
	slices.Sort(perTurn)
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N*(turns+1)), "ns/turn")
	b.ReportMetric(float64(perTurn[len(perTurn)/2].Nanoseconds()), "p50-ns/turn")
	b.ReportMetric(float64(perTurn[len(perTurn)*9/10].Nanoseconds()), "p90-ns/turn")
}
