package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/session"
)

func newStatsCmd(e *env, g *globals) *cobra.Command {
	var since, by string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Usage and cost from the stored sessions: tokens, cost, sessions, tool calls, plans",
		Long: "Adds up what the stored sessions used, by day (local time), model or workdir: model calls,\n" +
			"tokens, cost at the [pricing] of config.toml, sessions, tool calls and what became of plans.\n" +
			"A sub-agent's usage counts toward the session that started it.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			q, err := statsQuery(since, by, time.Now())
			if err != nil {
				return err
			}
			return withStore(e, g, func(c *config.Config, s session.Store) error {
				r, err := usageReport(cmd.Context(), s, q, c.PriceOf)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(e, r)
				}
				printReport(e.stdout, r)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&since, "since", "", "only usage since then: 7d, 12h, 90m or a date 2006-01-02 (default: all)")
	cmd.Flags().StringVar(&by, "by", "day", "group by day, model or workdir")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as one JSON object")
	return cmd
}

// statsQuery turns the flags into a report query at now.
func statsQuery(since, by string, now time.Time) (session.UsageQuery, error) {
	q := session.UsageQuery{By: session.UsageGroup(by)}
	switch q.By {
	case session.ByDay, session.ByModel, session.ByWorkdir:
	default:
		return q, usageErr("--by must be day, model or workdir, not %q", by)
	}
	_, off := now.Zone()
	q.Offset = time.Duration(off) * time.Second
	if since == "" {
		return q, nil
	}
	if n, ok := strings.CutSuffix(since, "d"); ok {
		if days, err := strconv.Atoi(n); err == nil && days > 0 {
			q.Since = now.AddDate(0, 0, -days)
			return q, nil
		}
	}
	if d, err := time.ParseDuration(since); err == nil && d > 0 {
		q.Since = now.Add(-d)
		return q, nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, since, now.Location()); err == nil {
		q.Since = t
		return q, nil
	}
	return q, usageErr("--since must be a number of days (7d), a duration (12h, 90m) or a date (2006-01-02), not %q", since)
}

// report is a usage report as `stats` and `sessions show` print it.
type report struct {
	By     session.UsageGroup `json:"by"`
	Since  *time.Time         `json:"since,omitempty"`
	Total  usageGroup         `json:"total"`
	Groups []usageGroup       `json:"groups"`
}

// usageGroup is one group's usage and cost.
type usageGroup struct {
	Key      string `json:"key,omitempty"`
	Sessions int    `json:"sessions"`
	session.Usage
	// Cost is in US dollars, at the configured prices; CostKnown is false
	// when a model in the group has no price (its tokens are not in Cost).
	Cost      float64      `json:"cost_usd"`
	CostKnown bool         `json:"cost_known"`
	Models    []usageModel `json:"models,omitempty"`
}

type usageModel struct {
	Model string `json:"model"`
	session.Usage
	Cost   float64 `json:"cost_usd"`
	Priced bool    `json:"priced"`
}

// usageReport runs q (one query) and prices it.
func usageReport(ctx context.Context, s session.Store, q session.UsageQuery, price func(string) (llm.Price, bool)) (report, error) {
	us, ok := s.(session.UsageStore)
	if !ok {
		return report{}, withCode(ExitError, fmt.Errorf("this session store keeps no usage"))
	}
	rows, err := us.UsageReport(ctx, q)
	if err != nil {
		return report{}, withCode(ExitError, err)
	}
	r := report{By: q.By, Groups: []usageGroup{}}
	if !q.Since.IsZero() {
		r.Since = &q.Since
	}
	total := usageGroup{CostKnown: true}
	var cur *usageGroup
	for _, row := range rows {
		switch {
		case row.Total && row.Key == "":
			total.Sessions, total.Usage = row.Sessions, row.Usage
		case row.Total:
			r.Groups = append(r.Groups, usageGroup{Key: row.Key, Sessions: row.Sessions, Usage: row.Usage, CostKnown: true})
			cur = &r.Groups[len(r.Groups)-1]
		case cur != nil:
			m := usageModel{Model: row.Model, Usage: row.Usage}
			if p, ok := price(row.Model); ok {
				m.Cost, m.Priced = p.Cost(llm.Usage{InputTokens: row.InputTokens, OutputTokens: row.OutputTokens,
					CacheReadTokens: row.CacheReadTokens, CacheWriteTokens: row.CacheWriteTokens}), true
			}
			cur.Models = append(cur.Models, m)
			cur.Cost += m.Cost
			cur.CostKnown = cur.CostKnown && (m.Priced || m.InputTokens+m.OutputTokens == 0)
		}
	}
	for _, g := range r.Groups {
		total.Cost += g.Cost
		total.CostKnown = total.CostKnown && g.CostKnown
	}
	r.Total = total
	return r, nil
}

// printReport prints r as a table with a total line.
func printReport(w io.Writer, r report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tsessions\tmodel calls\tinput\tcached\tcache write\toutput\treasoning\ttool calls\tplans approved\tcancelled\tcost\t\n",
		strings.ToUpper(string(r.By)))
	line := func(key string, g usageGroup) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t\n", key, g.Sessions, g.ModelCalls, g.InputTokens,
			g.CacheReadTokens, g.CacheWriteTokens, g.OutputTokens, g.ReasoningTokens, g.ToolCalls, g.PlansApproved, g.PlansCancelled, costText(g))
	}
	for _, g := range r.Groups {
		line(g.Key, g)
	}
	line("total", r.Total)
	_ = tw.Flush()
	if !r.Total.CostKnown {
		fmt.Fprintln(w, "(a model has no price in [pricing] of config.toml: its cost is not counted, \"+\" marks it)")
	}
}

// costText is a cost in dollars, "+"-marked when a model had no price.
func costText(g usageGroup) string {
	s := fmt.Sprintf("$%.2f", g.Cost)
	if g.Cost > 0 && g.Cost < 0.01 {
		s = fmt.Sprintf("$%.4f", g.Cost)
	}
	if !g.CostKnown {
		s += "+"
	}
	return s
}
