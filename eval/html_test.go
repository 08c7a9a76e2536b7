package eval_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/harness9/harness9/eval"
	"github.com/harness9/harness9/internal/lib/browsertest"
)

// checkHTMLReport writes the report of the smoke suite's records and opens
// it in a browser: the plots are there, one bar per configuration, one dot
// per run, one grid cell per task and configuration, nothing loaded from
// elsewhere.
func checkHTMLReport(t *testing.T, recs []eval.Record) {
	var buf bytes.Buffer
	if err := eval.WriteHTML(&buf, "smoke", recs); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.Start(t)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path), chromedp.WaitVisible("#grid")); err != nil {
		t.Fatalf("open the report: %v", err)
	}
	counts, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]int](`({
		bars: document.querySelectorAll("#pass-rate rect.bar").length,
		intervals: document.querySelectorAll("#pass-rate line.ci").length,
		cost: document.querySelectorAll("#cost-dist circle.dot").length,
		turns: document.querySelectorAll("#turns-dist circle.dot").length,
		cells: document.querySelectorAll("#grid td.cell").length,
		green: [...document.querySelectorAll("#grid td.cell")].filter(c => c.textContent === "1/1").length,
		external: document.querySelectorAll("[src], link[href], script").length,
		resources: performance.getEntriesByType("resource").length,
	})`))
	if err != nil {
		t.Fatalf("count the plots' marks: %v", err)
	}
	widths, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`[...document.querySelectorAll("#pass-rate rect.bar")].map(r => r.getBBox().width)`))
	if err != nil {
		t.Fatalf("measure the bars: %v", err)
	}
	want := map[string]int{"bars": 2, "intervals": 2, "cost": 14, "turns": 14, "cells": 14, "green": 8, "external": 0, "resources": 0}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("%s: %d in the page, want %d (all: %v)", k, counts[k], v, counts)
		}
	}
	// Both configurations pass 4 of their 7 runs: two equal bars, 4/7 of
	// the scale.
	if len(widths) != 2 || widths[0] != widths[1] || widths[0] < 240 || widths[0] > 262 {
		t.Errorf("pass-rate bars %v, want two of 4/7 of the plot's width", widths)
	}
	if !strings.Contains(buf.String(), "<td>plan scripted/task</td><td>4/7</td><td>57.1%</td>") {
		t.Error("the summary table does not say plan passed 4 of 7")
	}
	// direct: 1 timeout, 0 evidence refusals, 1 sandbox refusal, 0 errors.
	if !strings.Contains(buf.String(), "<td>1</td><td>0</td><td>1</td><td>0</td></tr>") {
		t.Error("the summary table does not give direct's sandbox refusal")
	}
}
