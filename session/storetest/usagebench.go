package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/harness9/harness9/session"
)

// UsageSessions is how many sessions BenchUsageReport seeds.
const UsageSessions = 10_000

// BenchUsageReport seeds s with UsageSessions sessions over 30 days and 20
// workdirs, each with usage in three hours and two models (sub-agents
// every tenth session), then times one report per grouping: what
// `harness9 stats` runs. The store must implement session.UsageStore.
func BenchUsageReport(b *testing.B, s session.Store) {
	us, ok := s.(session.UsageStore)
	if !ok {
		b.Skip("the store does not implement session.UsageStore")
	}
	ctx := context.Background()
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var parent string
	for i := range UsageSessions {
		sess := session.Session{Workdir: fmt.Sprintf("/work/project-%02d", i%20), Model: "openai/gpt-4.1"}
		if i%10 == 9 {
			sess.ParentID = parent
		}
		if err := s.Create(ctx, &sess); err != nil {
			b.Fatal(err)
		}
		if sess.ParentID == "" {
			parent = sess.ID
		}
		at := start.Add(time.Duration(i) * 30 * 24 * time.Hour / UsageSessions)
		for h := range 3 {
			for _, m := range []string{"openai/gpt-4.1", "anthropic/claude-sonnet-4"} {
				u := session.Usage{ModelCalls: 5, InputTokens: 50_000, OutputTokens: 2_000, CacheReadTokens: 30_000, ToolCalls: 6}
				if h == 0 && m == "openai/gpt-4.1" {
					u.PlansSubmitted, u.PlansApproved = 1, 1
				}
				if err := us.AddUsage(ctx, sess.ID, at.Add(time.Duration(h)*time.Hour), m, u); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	for _, by := range []session.UsageGroup{session.ByDay, session.ByModel, session.ByWorkdir} {
		b.Run(string(by), func(b *testing.B) {
			var rows []session.UsageRow
			for b.Loop() {
				var err error
				if rows, err = us.UsageReport(ctx, session.UsageQuery{By: by}); err != nil {
					b.Fatal(err)
				}
			}
			if rows[0].Sessions != UsageSessions-UsageSessions/10 || rows[0].ModelCalls != UsageSessions*30 {
				b.Fatalf("grand total %+v", rows[0])
			}
		})
	}
	b.Run("session", func(b *testing.B) {
		for b.Loop() {
			if _, err := us.UsageReport(ctx, session.UsageQuery{By: session.BySession, Session: parent}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
