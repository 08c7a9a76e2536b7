package eval

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// Summary adds up the runs of one configuration.
type Summary struct {
	Type   string `json:"type"` // "summary"
	Config Config `json:"config"`
	Runs   int    `json:"runs"`
	Passed int    `json:"passed"`
	// PassRate is Passed/Runs.
	PassRate float64 `json:"pass_rate"`
	// Tasks is the number of tasks run; PassAtK how many of them passed in
	// at least one of their attempts (pass@k with k the repeat count).
	Tasks   int `json:"tasks"`
	PassAtK int `json:"pass_at_k"`

	Turns            int     `json:"turns"`
	InputTokens      int     `json:"input_tokens"`
	OutputTokens     int     `json:"output_tokens"`
	Cost             float64 `json:"cost"`
	WallMS           int64   `json:"wall_ms"`
	ToolCalls        int     `json:"tool_calls"`
	Plans            int     `json:"plans"`
	Refinements      int     `json:"refinements"`
	Stalls           int     `json:"stalls"`
	Timeouts         int     `json:"timeouts"`
	EvidenceRefusals int     `json:"evidence_refusals"`
	SandboxRefusals  int     `json:"sandbox_refusals"`
	Errors           int     `json:"errors"`
}

// Summarize returns one summary per configuration, in the order the
// configurations first appear in recs.
func Summarize(recs []Record) []Summary {
	var order []Config
	by := map[Config]*Summary{}
	tasks := map[Config]map[string]bool{}
	for _, r := range recs {
		c := r.Config()
		s := by[c]
		if s == nil {
			s = &Summary{Type: "summary", Config: c}
			by[c] = s
			tasks[c] = map[string]bool{}
			order = append(order, c)
		}
		s.Runs++
		if r.Pass {
			s.Passed++
		}
		tasks[c][r.Task] = tasks[c][r.Task] || r.Pass
		s.Turns += r.Turns
		s.InputTokens += r.Tokens.InputTokens
		s.OutputTokens += r.Tokens.OutputTokens
		s.Cost += r.Cost
		s.WallMS += r.WallMS
		s.ToolCalls += r.ToolCalls
		s.Plans += r.Plans
		s.Refinements += r.Refinements
		s.Stalls += r.Stalls
		s.EvidenceRefusals += r.EvidenceRefusals
		s.SandboxRefusals += r.SandboxRefusals
		if r.TimedOut {
			s.Timeouts++
		}
		if r.Error != "" {
			s.Errors++
		}
	}
	out := make([]Summary, 0, len(order))
	for _, c := range order {
		s := by[c]
		s.PassRate = float64(s.Passed) / float64(s.Runs)
		s.Tasks = len(tasks[c])
		for _, passed := range tasks[c] {
			if passed {
				s.PassAtK++
			}
		}
		out = append(out, *s)
	}
	return out
}

// WriteTable writes the summaries as a table for a terminal.
func WriteTable(w io.Writer, sums []Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "config\tpass\trate\tpass@k\tturns\ttokens in/out\tcost\twall\ttools\tstalls\ttimeouts\tevidence\trefused\terrors\t")
	for _, s := range sums {
		fmt.Fprintf(tw, "%s\t%d/%d\t%.0f%%\t%d/%d\t%d\t%d/%d\t$%.4f\t%.1fs\t%d\t%d\t%d\t%d\t%d\t%d\t\n",
			s.Config, s.Passed, s.Runs, 100*s.PassRate, s.PassAtK, s.Tasks, s.Turns, s.InputTokens, s.OutputTokens,
			s.Cost, float64(s.WallMS)/1000, s.ToolCalls, s.Stalls, s.Timeouts, s.EvidenceRefusals, s.SandboxRefusals, s.Errors)
	}
	return tw.Flush()
}

// WriteGrid writes, per task, how many of its runs passed under each
// configuration.
func WriteGrid(w io.Writer, recs []Record) error {
	sums := Summarize(recs)
	type cell struct{ pass, runs int }
	grid := map[string]map[Config]*cell{}
	for _, r := range recs {
		if grid[r.Task] == nil {
			grid[r.Task] = map[Config]*cell{}
		}
		c := grid[r.Task][r.Config()]
		if c == nil {
			c = &cell{}
			grid[r.Task][r.Config()] = c
		}
		c.runs++
		if r.Pass {
			c.pass++
		}
	}
	names := make([]string, 0, len(grid))
	for n := range grid {
		names = append(names, n)
	}
	slices.Sort(names)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"task"}
	for _, s := range sums {
		head = append(head, s.Config.String())
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, n := range names {
		row := []string{n}
		for _, s := range sums {
			if c := grid[n][s.Config]; c != nil {
				row = append(row, fmt.Sprintf("%d/%d", c.pass, c.runs))
			} else {
				row = append(row, "-")
			}
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}
