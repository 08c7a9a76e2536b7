package llm_test

import (
	"math"
	"testing"

	"github.com/harness9/harness9/llm"
)

func TestPriceCost(t *testing.T) {
	u := llm.Usage{InputTokens: 1_000_000, OutputTokens: 100_000, CacheReadTokens: 400_000, CacheWriteTokens: 100_000}
	cases := []struct {
		p    llm.Price
		want float64
	}{
		// Cached tokens at the input price unless they have their own.
		{llm.Price{Input: 2, Output: 8}, 2 + 0.8},
		{llm.Price{Input: 2, Output: 8, CacheRead: 0.5}, 0.5*2 + 0.4*0.5 + 0.1*2 + 0.8},
		{llm.Price{Input: 2, Output: 8, CacheRead: 0.5, CacheWrite: 2.5}, 0.5*2 + 0.4*0.5 + 0.1*2.5 + 0.8},
		{llm.Price{}, 0},
	}
	for _, c := range cases {
		if got := c.p.Cost(u); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%+v.Cost = %v, want %v", c.p, got, c.want)
		}
	}
	// A provider that reports more cached than input tokens costs no less
	// than nothing.
	if got := (llm.Price{Input: 1, CacheRead: 1}).Cost(llm.Usage{InputTokens: 1, CacheReadTokens: 5}); got < 0 {
		t.Errorf("negative cost %v", got)
	}
}
