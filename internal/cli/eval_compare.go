package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/harness9/harness9/eval"
)

func newEvalCompareCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Compare two evals: pass-rate difference with a 95% bootstrap interval, token/cost/time deltas",
		Long: "A and B are results files (--out of harness9 eval), each optionally narrowed to one mode and model:\n" +
			"FILE@MODE or FILE@MODE@MODEL, e.g. results.jsonl@direct results.jsonl@plan compares the two modes of one eval.\n" +
			"The differences are B minus A.",
		Args: cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			a, err := selectResults(args[0])
			if err != nil {
				return err
			}
			b, err := selectResults(args[1])
			if err != nil {
				return err
			}
			c := eval.Compare(args[0], a, args[1], b)
			if asJSON {
				writeJSONLine(e.stdout, c)
				return nil
			}
			printComparison(e, c)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the comparison as one JSON object")
	return cmd
}

func newEvalReportCmd(e *env) *cobra.Command {
	var html string
	cmd := &cobra.Command{
		Use:   "report RESULTS",
		Short: "Print the summary of a results file again, or write its HTML report (--html)",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			recs, err := eval.ReadResults(args[0])
			if err != nil {
				return withCode(ExitUsage, err)
			}
			if html != "" {
				return writeHTMLReport(html, args[0], recs)
			}
			if err := eval.WriteTable(e.stdout, eval.Summarize(recs)); err != nil {
				return err
			}
			fmt.Fprintln(e.stdout)
			return eval.WriteGrid(e.stdout, recs)
		},
	}
	cmd.Flags().StringVar(&html, "html", "", "write the HTML report to this file instead")
	return cmd
}

// selectResults reads FILE[@MODE[@MODEL]].
func selectResults(arg string) ([]eval.Record, error) {
	file, sel, _ := strings.Cut(arg, "@")
	mode, model, _ := strings.Cut(sel, "@")
	if mode != "" && mode != string(eval.Plan) && mode != string(eval.Direct) {
		return nil, usageErr("%s: the mode after @ must be plan or direct, not %q", arg, mode)
	}
	recs, err := eval.ReadResults(file)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	recs = eval.Select(recs, eval.Mode(mode), model)
	if len(recs) == 0 {
		return nil, usageErr("%s holds no run of that mode and model", arg)
	}
	return recs, nil
}

func printComparison(e *env, c eval.Comparison) {
	w := e.stdout
	fmt.Fprintf(w, "A  %s: %d/%d passed (%.1f%%)\n", c.A.Label, c.A.Passed, c.A.Runs, 100*c.A.PassRate)
	fmt.Fprintf(w, "B  %s: %d/%d passed (%.1f%%)\n", c.B.Label, c.B.Passed, c.B.Runs, 100*c.B.PassRate)
	how := "runs resampled on each side"
	if c.Paired {
		how = "tasks resampled, paired"
	}
	fmt.Fprintf(w, "pass rate B-A  %+.1f points, %.0f%% interval [%+.1f, %+.1f] (bootstrap, %d samples, %s)\n",
		100*c.PassRateDiff, 100*c.Confidence, 100*c.CILow, 100*c.CIHigh, c.Resamples, how)
	fmt.Fprintf(w, "per run B-A    turns %+.2f, tokens %+.0f, cost $%+.4f, wall %+.1fs\n",
		c.TurnsDelta, c.TokensDelta, c.CostDelta, c.WallMSDelta/1000)
}

// writeHTMLReport writes the HTML report of recs to path.
func writeHTMLReport(path, title string, recs []eval.Record) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := eval.WriteHTML(f, title, recs); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
