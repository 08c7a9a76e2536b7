package cli_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/sqlite"
)

// seedListing writes the sessions TestSessionsListOutput lists into the
// harness's data directory, at fixed times and ids.
func seedListing(t *testing.T, h *harness) {
	t.Helper()
	clock := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ids := []string{"a1b2c3d4e5f60718", "0123456789abcdef", "fedcba9876543210", "5555aaaa5555aaaa"}
	s, err := sqlite.Open(session.DefaultPath(h.home),
		sqlite.WithClock(func() time.Time { clock = clock.Add(time.Minute); return clock }),
		sqlite.WithIDGenerator(func() string { id := ids[0]; ids = ids[1:]; return id }))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	create := func(sess session.Session) session.Session {
		if err := s.Create(ctx, &sess); err != nil {
			t.Fatal(err)
		}
		return sess
	}
	planned := create(session.Session{Workdir: h.workdir, Model: "openai/gpt-4o", Title: "port the handlers\nand test them", Mode: planning.ModePlan})
	for _, m := range []llm.Message{{Role: llm.RoleUser, Content: "port"}, {Role: llm.RoleAssistant, Content: "ok"}} {
		if err := s.AppendMessage(ctx, planned.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	err = s.SaveState(ctx, planned.ID, session.State{Status: planning.StatusExecuting, Evidence: 2,
		Todos: []planning.TodoItem{
			{ID: "1", Content: "read", Status: planning.TodoCompleted},
			{ID: "2", Content: "port", Status: planning.TodoInProgress},
			{ID: "3", Content: "test", Status: planning.TodoPending},
			{ID: "4", Content: "drop", Status: planning.TodoCancelled},
			{ID: "5", Content: "docs", Status: planning.TodoCompleted},
		},
		Plan:       &planning.Plan{Title: "Port", Content: strings.Repeat("a long plan ", 500), Steps: []string{"read", "port"}},
		Compaction: &session.Compaction{Summary: strings.Repeat("summary ", 500), Covered: 2}})
	if err != nil {
		t.Fatal(err)
	}
	create(session.Session{Workdir: h.workdir, Model: "anthropic/claude-x", Title: "a sub-agent's task", ParentID: planned.ID})
	bare := create(session.Session{Workdir: h.workdir, Model: "openai/gpt-4o", Title: "evil \x1b]0;pwned\x07 title"})
	if err := s.SaveState(ctx, bare.ID, session.State{}); err != nil {
		t.Fatal(err)
	}
	create(session.Session{Workdir: "/elsewhere", Model: "m", Title: strings.Repeat("long title ", 10)})
}

// TestSessionsListOutput pins what `sessions list` prints, through the
// binary: the JSON byte for byte (field names, order, status and todo
// counts as planning.Progress makes them), and the table.
func TestSessionsListOutput(t *testing.T) {
	h := newHarness(t)
	h.env = append(h.env, "TZ=UTC")
	seedListing(t, h)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sessions", "list", "--all", "--json", "--sub-agents"}, wantListJSON},
		{[]string{"sessions", "list", "--all", "--sub-agents"}, wantListTable},
		{[]string{"sessions", "list", "-C", h.workdir}, wantListWorkdir},
	} {
		r := h.run("", tc.args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, r.code, r.stderr)
		}
		got := strings.ReplaceAll(r.stdout, h.workdir, "WORKDIR")
		if got != tc.want {
			t.Errorf("%v printed\n%s\nwant\n%s", tc.args, got, tc.want)
		}
	}
}

// The expected outputs were printed by harness9 before ListSummaries (main
// at ead1f4e, decoding every state with encoding/json, printing through
// text/tabwriter), from the same seed.
const wantListJSON = `[
  {
    "id": "5555aaaa5555aaaa",
    "created": "2026-11-30T12:08:00Z",
    "updated": "2026-11-30T12:08:00Z",
    "workdir": "/elsewhere",
    "model": "m",
    "title": "long title long title long title long title long title long title long title long title long title long title ",
    "mode": "default",
    "message_count": 0,
    "status": "idle",
    "todos_done": 0,
    "todos_total": 0
  },
  {
    "id": "fedcba9876543210",
    "created": "2026-11-30T12:06:00Z",
    "updated": "2026-11-30T12:07:00Z",
    "workdir": "WORKDIR",
    "model": "openai/gpt-4o",
    "title": "evil \u001b]0;pwned\u0007 title",
    "mode": "default",
    "message_count": 0,
    "status": "idle",
    "todos_done": 0,
    "todos_total": 0
  },
  {
    "id": "0123456789abcdef",
    "created": "2026-11-30T12:05:00Z",
    "updated": "2026-11-30T12:05:00Z",
    "workdir": "WORKDIR",
    "model": "anthropic/claude-x",
    "title": "a sub-agent's task",
    "mode": "default",
    "parent_id": "a1b2c3d4e5f60718",
    "message_count": 0,
    "status": "idle",
    "todos_done": 0,
    "todos_total": 0
  },
  {
    "id": "a1b2c3d4e5f60718",
    "created": "2026-11-30T12:01:00Z",
    "updated": "2026-11-30T12:04:00Z",
    "workdir": "WORKDIR",
    "model": "openai/gpt-4o",
    "title": "port the handlers\nand test them",
    "mode": "plan",
    "message_count": 2,
    "status": "executing",
    "todos_done": 2,
    "todos_total": 5
  }
]
`

const wantListTable = `ID                UPDATED              MODEL               MSGS  TASKS  STATUS     TITLE
5555aaaa5555aaaa  2026-11-30 12:08:00  m                   0     0/0    idle       long title long title long title long title long title long …
fedcba9876543210  2026-11-30 12:07:00  openai/gpt-4o       0     0/0    idle       evil \x1b]0;pwned\x07 title
0123456789abcdef  2026-11-30 12:05:00  anthropic/claude-x  0     0/0    idle       ↳ a sub-agent's task (sub-agent of a1b2c3d4)
a1b2c3d4e5f60718  2026-11-30 12:04:00  openai/gpt-4o       2     2/5    executing  port the handlers …
`

const wantListWorkdir = `ID                UPDATED              MODEL          MSGS  TASKS  STATUS     TITLE
fedcba9876543210  2026-11-30 12:07:00  openai/gpt-4o  0     0/0    idle       evil \x1b]0;pwned\x07 title
a1b2c3d4e5f60718  2026-11-30 12:04:00  openai/gpt-4o  2     2/5    executing  port the handlers …
`
