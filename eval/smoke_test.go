package eval_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/harness9/harness9/eval"
	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/session/sqlite"
)

// taskScripts plays each task's own script.
func taskScripts(_ context.Context, t *eval.Task, c eval.Config) (llm.Provider, string, error) {
	p, err := eval.TaskScript(t, c.Mode)
	return p, "task", err
}

// runSmoke runs evals/smoke in both modes with the task scripts, into a
// results file, and returns the records.
func runSmoke(t *testing.T, results string, opts ...eval.Option) []eval.Record {
	t.Helper()
	tasks, err := eval.LoadSuite("../evals/smoke")
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	store, err := sqlite.Open(filepath.Join(data, "harness9.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	base := []eval.Option{
		eval.WithAgentOptions(harness.WithDataDir(data), harness.WithStore(store), harness.WithEnv(os.Environ())),
		eval.WithCommandEnv(os.Environ()),
		eval.WithPrice(func(string) (llm.Price, bool) { return llm.Price{Input: 1, Output: 10}, true }),
	}
	r := eval.NewRunner(taskScripts, append(base, opts...)...)
	res, err := eval.OpenResults(results, false)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	configs := []eval.Config{{Mode: eval.Plan, Model: eval.TaskScriptModel}, {Mode: eval.Direct, Model: eval.TaskScriptModel}}
	if err := r.Run(context.Background(), eval.Jobs(tasks, configs, 1), res, nil); err != nil {
		t.Fatal(err)
	}
	recs, err := eval.ReadResults(results)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestSmokeSuite runs the shipped smoke suite in both modes and checks
// every number of the report: which tasks pass, how each run ended, and
// what was counted on the way.
func TestSmokeSuite(t *testing.T) {
	recs := runSmoke(t, filepath.Join(t.TempDir(), "results.jsonl"))
	if len(recs) != 14 {
		t.Fatalf("%d records, want 14", len(recs))
	}
	type want struct {
		pass                                             bool
		status                                           string
		timedOut                                         bool
		turns, tools, plans, rounds, stalls, ev, refused int
	}
	wants := map[string]want{
		"hello plan":          {true, "completed", false, 4, 3, 1, 1, 0, 0, 0},
		"hello direct":        {true, "completed", false, 2, 1, 0, 0, 0, 0, 0},
		"fix-typo plan":       {true, "completed", false, 5, 4, 1, 1, 0, 0, 0},
		"fix-typo direct":     {true, "completed", false, 3, 2, 0, 0, 0, 0, 0},
		"count-lines plan":    {true, "completed", false, 5, 4, 1, 1, 0, 0, 0},
		"count-lines direct":  {true, "completed", false, 2, 1, 0, 0, 0, 0, 0},
		"wrong-answer plan":   {false, "completed", false, 5, 4, 1, 1, 0, 1, 0},
		"wrong-answer direct": {false, "completed", false, 2, 1, 0, 0, 0, 0, 0},
		"stall plan":          {false, "stalled", false, 4, 1, 1, 3, 1, 0, 0},
		"stall direct":        {false, "completed", false, 1, 0, 0, 0, 0, 0, 0},
		"timeout plan":        {false, "cancelled", true, 1, 0, 0, 0, 0, 0, 0},
		"timeout direct":      {false, "cancelled", true, 1, 0, 0, 0, 0, 0, 0},
		"escape plan":         {true, "completed", false, 5, 4, 1, 1, 0, 0, 1},
		"escape direct":       {true, "completed", false, 3, 2, 0, 0, 0, 0, 1},
	}
	for _, r := range recs {
		key := r.Task + " " + string(r.Mode)
		w, ok := wants[key]
		if !ok {
			t.Errorf("unexpected run %s", key)
			continue
		}
		got := want{r.Pass, r.Status, r.TimedOut, r.Turns, r.ToolCalls, r.Plans, r.ExecRounds, r.Stalls, r.EvidenceRefusals, r.SandboxRefusals}
		if got != w {
			t.Errorf("%s: got %+v, want %+v (error %q, check output %q)", key, got, w, r.Error, r.CheckOutput)
		}
		if r.SessionID == "" || r.Error != "" {
			t.Errorf("%s: session %q, error %q", key, r.SessionID, r.Error)
		}
		if wantExit := map[bool]int{true: 0, false: 1}[r.Pass]; r.CheckExit != wantExit {
			t.Errorf("%s: check exit %d, want %d", key, r.CheckExit, wantExit)
		}
	}
	sums := eval.Summarize(recs)
	if len(sums) != 2 {
		t.Fatalf("%d summaries, want 2", len(sums))
	}
	for _, s := range sums {
		want := eval.Summary{Type: "summary", Config: s.Config, Runs: 7, Passed: 4, PassRate: 4.0 / 7, Tasks: 7, PassAtK: 4,
			Turns: 29, InputTokens: 440, OutputTokens: 60, ToolCalls: 20, Plans: 6, Stalls: 1, Timeouts: 1, EvidenceRefusals: 1,
			SandboxRefusals: 1}
		if s.Config.Mode == eval.Direct {
			want.Turns, want.InputTokens, want.OutputTokens, want.ToolCalls = 14, 200, 20, 7
			want.Plans, want.Stalls, want.EvidenceRefusals = 0, 0, 0
		}
		wantCost := float64(want.InputTokens)*1e-6 + float64(want.OutputTokens)*10e-6
		if math.Abs(s.Cost-wantCost) > 1e-12 {
			t.Errorf("%s: cost %v, want %v", s.Config, s.Cost, wantCost)
		}
		s.Cost, s.WallMS = 0, 0
		if s != want {
			t.Errorf("summary %s:\n got %+v\nwant %+v", s.Config, s, want)
		}
	}
	var table strings.Builder
	if err := eval.WriteTable(&table, sums); err != nil {
		t.Fatal(err)
	}
	// Every column but the wall time, which is measured.
	for _, row := range []string{`plan scripted/task +4/7 +57% +4/7 +29 +440/60 +\$0\.0010 +[0-9.]+s +20 +1 +1 +1 +1 +0`,
		`direct scripted/task +4/7 +57% +4/7 +14 +200/20 +\$0\.0004 +[0-9.]+s +7 +0 +1 +0 +1 +0`} {
		if !regexp.MustCompile(row).MatchString(table.String()) {
			t.Errorf("the table has no row %q:\n%s", row, table.String())
		}
	}
	checkHTMLReport(t, recs)
}

// TestResume reruns an eval whose results file lost runs: only those run
// again, and the file ends with each run once.
func TestResume(t *testing.T) {
	results := filepath.Join(t.TempDir(), "results.jsonl")
	first := runSmoke(t, results)
	b, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSpace(string(b)), "\n")
	// Keep the first 9 runs and half of the 10th, as a killed process leaves it.
	kept := strings.Join(lines[:9], "") + lines[9][:len(lines[9])/2]
	if err := os.WriteFile(results, []byte(kept), 0o644); err != nil {
		t.Fatal(err)
	}
	again := runSmoke(t, results)
	if len(again) != 14 {
		t.Fatalf("%d records after resuming, want 14", len(again))
	}
	for i := range 9 {
		if again[i].SessionID != first[i].SessionID {
			t.Errorf("run %d was done again: session %s, was %s", i, again[i].SessionID, first[i].SessionID)
		}
	}
	for i := 9; i < 14; i++ {
		if again[i].SessionID == first[i].SessionID {
			t.Errorf("run %d (%s %s) was not done again", i, again[i].Task, again[i].Mode)
		}
	}
}
