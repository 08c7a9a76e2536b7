package eval_test

import (
	"math"
	"testing"

	"github.com/harness9/harness9/eval"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestCompare compares two recorded evals of the same 20 tasks, twice
// each: direct passes 8 tasks, plan 14 (the 8 and 6 more), so plan is 30
// points better, and every run of plan costs 2 turns, 500 tokens, $0.005
// and a second more.
func TestCompare(t *testing.T) {
	a, err := eval.ReadResults("testdata/direct.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	b, err := eval.ReadResults("testdata/plan.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	c := eval.Compare("direct", a, "plan", b)
	if c.A.Runs != 40 || c.B.Runs != 40 || c.A.Passed != 16 || c.B.Passed != 28 {
		t.Fatalf("sides: %+v %+v", c.A, c.B)
	}
	if !near(c.PassRateDiff, 0.3) || !near(c.TurnsDelta, 2) || !near(c.TokensDelta, 500) || !near(c.CostDelta, 0.005) || !near(c.WallMSDelta, 1000) {
		t.Fatalf("differences: %+v", c)
	}
	if !c.Paired {
		t.Fatal("the same tasks on both sides were not compared task by task")
	}
	// Resampling 20 tasks of which 6 differ by one: the interval lies
	// around 0.3 and excludes no difference at all.
	if !(c.CILow > 0 && c.CILow < 0.3 && c.CIHigh > 0.3 && c.CIHigh < 0.6) {
		t.Fatalf("95%% interval [%v, %v] for a difference of 0.3", c.CILow, c.CIHigh)
	}
	if again := eval.Compare("direct", a, "plan", b); again != c {
		t.Fatal("the same records gave another interval")
	}
	// Unpaired (different tasks on the two sides) the interval is wider.
	u := eval.Compare("direct", a[:20], "plan", b[21:40])
	if u.Paired || u.CIHigh-u.CILow <= c.CIHigh-c.CILow {
		t.Fatalf("unpaired comparison %+v not wider than the paired one", u)
	}
	// The same side against itself: no difference, a zero-width interval.
	if s := eval.Compare("a", a, "a", a); s.PassRateDiff != 0 || s.CILow != 0 || s.CIHigh != 0 {
		t.Fatalf("a against itself: %+v", s)
	}
}

func TestSelect(t *testing.T) {
	a, _ := eval.ReadResults("testdata/direct.jsonl")
	b, _ := eval.ReadResults("testdata/plan.jsonl")
	all := append(a, b...)
	if n := len(eval.Select(all, eval.Plan, "")); n != 40 {
		t.Fatalf("%d plan records", n)
	}
	if n := len(eval.Select(all, "", "openai/gpt-4.1")); n != 80 {
		t.Fatalf("%d records of the model", n)
	}
	if n := len(eval.Select(all, eval.Direct, "other")); n != 0 {
		t.Fatalf("%d records of another model", n)
	}
}
