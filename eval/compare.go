package eval

import (
	"maps"
	"math/rand/v2"
	"slices"
)

// Side is one side of a comparison: its runs added up.
type Side struct {
	Label    string  `json:"label"`
	Runs     int     `json:"runs"`
	Passed   int     `json:"passed"`
	PassRate float64 `json:"pass_rate"`
	// The means per run.
	Turns  float64 `json:"mean_turns"`
	Tokens float64 `json:"mean_tokens"` // input + output
	Cost   float64 `json:"mean_cost"`
	WallMS float64 `json:"mean_wall_ms"`
}

// Comparison says how B differs from A.
type Comparison struct {
	Type string `json:"type"` // "comparison"
	A    Side   `json:"a"`
	B    Side   `json:"b"`
	// PassRateDiff is B's pass rate minus A's; CILow and CIHigh bound it
	// at Confidence by the bootstrap.
	PassRateDiff float64 `json:"pass_rate_diff"`
	CILow        float64 `json:"ci_low"`
	CIHigh       float64 `json:"ci_high"`
	Confidence   float64 `json:"confidence"`
	// Paired is true when both sides ran the same tasks: the bootstrap
	// then resamples tasks, each task's difference taken within it, which
	// gives a narrower interval than resampling the two sides apart.
	Paired    bool `json:"paired"`
	Resamples int  `json:"resamples"`
	// B's mean minus A's.
	TurnsDelta  float64 `json:"turns_delta"`
	TokensDelta float64 `json:"tokens_delta"`
	CostDelta   float64 `json:"cost_delta"`
	WallMSDelta float64 `json:"wall_ms_delta"`
}

// Resamples is how many bootstrap samples Compare draws.
const Resamples = 10000

// Compare compares the runs b with the runs a: the difference of their
// pass rates with a 95% bootstrap confidence interval, and the differences
// of their mean turns, tokens, cost and wall time. The bootstrap's random
// numbers come from a fixed seed, so the same records give the same
// interval.
func Compare(labelA string, a []Record, labelB string, b []Record) Comparison {
	c := Comparison{Type: "comparison", A: side(labelA, a), B: side(labelB, b), Confidence: 0.95, Resamples: Resamples}
	c.PassRateDiff = c.B.PassRate - c.A.PassRate
	c.TurnsDelta = c.B.Turns - c.A.Turns
	c.TokensDelta = c.B.Tokens - c.A.Tokens
	c.CostDelta = c.B.Cost - c.A.Cost
	c.WallMSDelta = c.B.WallMS - c.A.WallMS
	if len(a) == 0 || len(b) == 0 {
		return c
	}
	rng := rand.New(rand.NewPCG(1, 2))
	diffs := make([]float64, Resamples)
	ta, tb := byTask(a), byTask(b)
	c.Paired = sameKeys(ta, tb)
	if c.Paired {
		tasks := slices.Sorted(maps.Keys(ta))
		per := make([]float64, len(tasks))
		for i, t := range tasks {
			per[i] = rate(tb[t]) - rate(ta[t])
		}
		for i := range diffs {
			sum := 0.0
			for range per {
				sum += per[rng.IntN(len(per))]
			}
			diffs[i] = sum / float64(len(per))
		}
	} else {
		pa, pb := passes(a), passes(b)
		for i := range diffs {
			diffs[i] = resampleRate(rng, pb) - resampleRate(rng, pa)
		}
	}
	slices.Sort(diffs)
	tail := (1 - c.Confidence) / 2
	c.CILow = diffs[int(tail*float64(Resamples))]
	c.CIHigh = diffs[int((1-tail)*float64(Resamples))-1]
	return c
}

func side(label string, recs []Record) Side {
	s := Side{Label: label, Runs: len(recs)}
	if len(recs) == 0 {
		return s
	}
	for _, r := range recs {
		if r.Pass {
			s.Passed++
		}
		s.Turns += float64(r.Turns)
		s.Tokens += float64(r.Tokens.InputTokens + r.Tokens.OutputTokens)
		s.Cost += r.Cost
		s.WallMS += float64(r.WallMS)
	}
	n := float64(len(recs))
	s.PassRate = float64(s.Passed) / n
	s.Turns /= n
	s.Tokens /= n
	s.Cost /= n
	s.WallMS /= n
	return s
}

func byTask(recs []Record) map[string][]bool {
	m := map[string][]bool{}
	for _, r := range recs {
		m[r.Task] = append(m[r.Task], r.Pass)
	}
	return m
}

func passes(recs []Record) []bool {
	out := make([]bool, len(recs))
	for i, r := range recs {
		out[i] = r.Pass
	}
	return out
}

func rate(p []bool) float64 {
	n := 0
	for _, ok := range p {
		if ok {
			n++
		}
	}
	return float64(n) / float64(len(p))
}

func resampleRate(rng *rand.Rand, p []bool) float64 {
	n := 0
	for range p {
		if p[rng.IntN(len(p))] {
			n++
		}
	}
	return float64(n) / float64(len(p))
}

func sameKeys(a, b map[string][]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// Select returns the records of recs under mode (any when "") and model
// (any when "").
func Select(recs []Record, mode Mode, model string) []Record {
	var out []Record
	for _, r := range recs {
		if (mode == "" || r.Mode == mode) && (model == "" || r.Model == model) {
			out = append(out, r)
		}
	}
	return out
}
