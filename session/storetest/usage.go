package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/harness9/harness9/session"
)

// testUsage checks session.UsageStore on stores that implement it: usage
// recorded in one hour with one model adds up; a report groups by day (at
// the reader's offset), model, workdir or top-level session, after the
// grand total, each group's total first and then its models; sessions are counted once per group and
// sub-agents not at all; Since and Session select; deleting a session
// drops its usage; an unknown session is ErrNotFound.
func testUsage(t *testing.T, s session.Store) {
	us, ok := s.(session.UsageStore)
	if !ok {
		t.Skip("the store does not implement session.UsageStore")
	}
	ctx := context.Background()
	a := create(t, s, session.Session{Workdir: "/w1", Model: "openai/m1"})
	b := create(t, s, session.Session{Workdir: "/w2", Model: "anthropic/m2"})
	child := create(t, s, session.Session{Workdir: "/w1", Model: "openai/m1", ParentID: a.ID})
	if err := us.AddUsage(ctx, "nope", past, "openai/m1", session.Usage{ModelCalls: 1}); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("AddUsage(unknown) = %v, want ErrNotFound", err)
	}
	// Day 1 is 2001-02-03 in UTC; 23:30 UTC that day is already the 4th
	// at UTC+1.
	day1 := time.Date(2001, 2, 3, 10, 15, 0, 0, time.UTC)
	late := time.Date(2001, 2, 3, 23, 30, 0, 0, time.UTC)
	day2 := time.Date(2001, 2, 5, 9, 0, 0, 0, time.UTC)
	adds := []struct {
		id    string
		at    time.Time
		model string
		u     session.Usage
	}{
		{a.ID, day1, "openai/m1", session.Usage{ModelCalls: 1, InputTokens: 100, OutputTokens: 10, CacheReadTokens: 50, ToolCalls: 2}},
		{a.ID, day1.Add(20 * time.Minute), "openai/m1", session.Usage{ModelCalls: 1, InputTokens: 200, OutputTokens: 20, CacheWriteTokens: 7, ReasoningTokens: 12, ToolCalls: 1}},
		{a.ID, day1, "openai/m1", session.Usage{PlansSubmitted: 1, PlansRefined: 1}},
		{a.ID, late, "openai/m3", session.Usage{ModelCalls: 1, InputTokens: 1000, OutputTokens: 100}},
		{child.ID, day1, "openai/m1", session.Usage{ModelCalls: 2, InputTokens: 30, OutputTokens: 3, ToolCalls: 4}},
		{b.ID, day2, "anthropic/m2", session.Usage{ModelCalls: 1, InputTokens: 7, OutputTokens: 1, PlansApproved: 1, PlansCancelled: 1, PlansStalled: 1}},
	}
	for _, x := range adds {
		if err := us.AddUsage(ctx, x.id, x.at, x.model, x.u); err != nil {
			t.Fatalf("AddUsage: %v", err)
		}
	}
	m1 := session.Usage{ModelCalls: 4, InputTokens: 330, OutputTokens: 33, CacheReadTokens: 50, CacheWriteTokens: 7, ReasoningTokens: 12, ToolCalls: 7,
		PlansSubmitted: 1, PlansRefined: 1}
	m3 := session.Usage{ModelCalls: 1, InputTokens: 1000, OutputTokens: 100}
	m2 := session.Usage{ModelCalls: 1, InputTokens: 7, OutputTokens: 1, PlansApproved: 1, PlansCancelled: 1, PlansStalled: 1}
	report := func(q session.UsageQuery) []session.UsageRow {
		t.Helper()
		rows, err := us.UsageReport(ctx, q)
		if err != nil {
			t.Fatalf("UsageReport(%+v): %v", q, err)
		}
		return rows
	}
	total := func(key string, sessions int, u session.Usage) session.UsageRow {
		return session.UsageRow{Key: key, Total: true, Sessions: sessions, Usage: u}
	}
	model := func(key, m string, u session.Usage) session.UsageRow {
		return session.UsageRow{Key: key, Model: m, Usage: u}
	}
	checks := []struct {
		q    session.UsageQuery
		want []session.UsageRow
	}{
		{session.UsageQuery{}, []session.UsageRow{total("", 2, m1.Add(m3).Add(m2)),
			total("2001-02-03", 1, m1.Add(m3)), model("2001-02-03", "openai/m1", m1), model("2001-02-03", "openai/m3", m3),
			total("2001-02-05", 1, m2), model("2001-02-05", "anthropic/m2", m2),
		}},
		{session.UsageQuery{By: session.ByDay, Offset: time.Hour}, []session.UsageRow{total("", 2, m1.Add(m3).Add(m2)),
			total("2001-02-03", 1, m1), model("2001-02-03", "openai/m1", m1),
			total("2001-02-04", 1, m3), model("2001-02-04", "openai/m3", m3),
			total("2001-02-05", 1, m2), model("2001-02-05", "anthropic/m2", m2),
		}},
		{session.UsageQuery{By: session.ByModel}, []session.UsageRow{total("", 2, m1.Add(m3).Add(m2)),
			total("anthropic/m2", 1, m2), model("anthropic/m2", "anthropic/m2", m2),
			total("openai/m1", 1, m1), model("openai/m1", "openai/m1", m1),
			total("openai/m3", 1, m3), model("openai/m3", "openai/m3", m3),
		}},
		{session.UsageQuery{By: session.ByWorkdir}, []session.UsageRow{total("", 2, m1.Add(m3).Add(m2)),
			total("/w1", 1, m1.Add(m3)), model("/w1", "openai/m1", m1), model("/w1", "openai/m3", m3),
			total("/w2", 1, m2), model("/w2", "anthropic/m2", m2),
		}},
		{session.UsageQuery{By: session.BySession, Session: a.ID}, []session.UsageRow{total("", 1, m1.Add(m3)),
			total(a.ID, 1, m1.Add(m3)), model(a.ID, "openai/m1", m1), model(a.ID, "openai/m3", m3),
		}},
		{session.UsageQuery{By: session.ByModel, Since: day2.Add(-time.Hour)}, []session.UsageRow{total("", 1, m2),
			total("anthropic/m2", 1, m2), model("anthropic/m2", "anthropic/m2", m2),
		}},
		// Since counts whole hours: usage at 23:30 is in from 23:59.
		{session.UsageQuery{By: session.ByModel, Since: late.Add(29 * time.Minute), Session: a.ID}, []session.UsageRow{total("", 1, m3),
			total("openai/m3", 1, m3), model("openai/m3", "openai/m3", m3),
		}},
		{session.UsageQuery{Session: child.ID, By: session.BySession}, []session.UsageRow{
			total("", 0, session.Usage{ModelCalls: 2, InputTokens: 30, OutputTokens: 3, ToolCalls: 4}),
			total(a.ID, 0, session.Usage{ModelCalls: 2, InputTokens: 30, OutputTokens: 3, ToolCalls: 4}),
			model(a.ID, "openai/m1", session.Usage{ModelCalls: 2, InputTokens: 30, OutputTokens: 3, ToolCalls: 4}),
		}},
	}
	for _, c := range checks {
		if got := report(c.q); !reflect.DeepEqual(got, c.want) {
			t.Errorf("UsageReport(%+v):\n got %+v\nwant %+v", c.q, got, c.want)
		}
	}
	if _, err := us.UsageReport(ctx, session.UsageQuery{By: "colour"}); err == nil {
		t.Error("an unknown grouping was accepted")
	}
	if err := s.Delete(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if got := report(session.UsageQuery{By: session.ByWorkdir, Session: b.ID}); len(got) != 1 || got[0] != (session.UsageRow{Total: true}) {
		t.Errorf("usage of a deleted session: %+v", got)
	}
}
