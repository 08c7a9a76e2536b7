package cli

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
)

// For cells without control characters the table is what text/tabwriter
// (minwidth 0, padding 2, spaces) made of the same lines, which is what
// `sessions list` printed before: checked on random rows of varying
// widths, multi-byte characters included.
func TestSessionTableMatchesTabwriter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"", "a", "openai/gpt-4o", "anthropic/claude-sonnet-4", "数据", "ünï", "ollama/qwen3:32b"}
	for n := range 40 {
		rows := make([]session.Summary, n)
		for i := range rows {
			rows[i] = session.Summary{
				Session: session.Session{ID: fmt.Sprintf("%x", rng.Uint64()>>rng.IntN(60)), Model: words[rng.IntN(len(words))],
					Title: words[rng.IntN(len(words))] + " title", MessageCount: rng.IntN(100000),
					Updated: time.Unix(rng.Int64N(4e9), 0)},
				Status:    []planning.Status{planning.StatusIdle, planning.StatusAwaitingApproval, "odd"}[rng.IntN(3)],
				TodosDone: rng.IntN(20), TodosTotal: rng.IntN(200),
			}
			if rng.IntN(4) == 0 {
				rows[i].ParentID = "0123456789abcdef"
			}
		}
		var want bytes.Buffer
		tw := tabwriter.NewWriter(&want, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tUPDATED\tMODEL\tMSGS\tTASKS\tSTATUS\tTITLE")
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d/%d\t%s\t%s\n", r.ID, r.Updated.Local().Format(time.DateTime), r.Model,
				r.MessageCount, r.TodosDone, r.TodosTotal, r.Status, listTitle(r.Session))
		}
		if err := tw.Flush(); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := writeSessionTable(&got, rows); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("%d rows:\n%s\nwant (tabwriter)\n%s", n, got.String(), want.String())
		}
	}
}

// A model name is the user's text and a title the model's: their control
// sequences are shown escaped, never written raw, and the columns are
// measured on what is shown, so a cell with an escape in it does not
// shift the columns after it.
func TestSessionTableCleansAndAligns(t *testing.T) {
	rows := []session.Summary{
		{Session: session.Session{ID: "1111", Model: "evil\x1b[2J\x1b]52;c;cGF5bG9hZA==\x07", Title: "clear\x1b[H\rscreen\u202e"}, Status: planning.StatusIdle},
		{Session: session.Session{ID: "2222", Model: "plain", Title: "ok"}, Status: planning.StatusExecuting, TodosDone: 1, TodosTotal: 3},
	}
	var out bytes.Buffer
	if err := writeSessionTable(&out, rows); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, raw := range []string{"\x1b", "\x07", "\r", "\u202e"} {
		if strings.Contains(text, raw) {
			t.Errorf("table carries %q raw:\n%q", raw, text)
		}
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want a header and 2 rows:\n%s", len(lines), text)
	}
	// Every line's STATUS cell starts in the same column.
	col := -1
	for i, l := range lines {
		word := map[int]string{0: "STATUS", 1: "idle", 2: "executing"}[i]
		at := strings.Index(l, word)
		if at < 0 {
			t.Fatalf("line %q lacks %q", l, word)
		}
		if col >= 0 && at != col {
			t.Errorf("STATUS column at %d in line %d, at %d in the header:\n%s", at, i, col, text)
		}
		col = at
	}
}
