package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/session"
)

// Compaction through the real binary. The numbered turns of the script read
// files until the estimated context passes 80% of a small --context-window;
// where exactly that happens depends on the size of the system prompt and the
// tool definitions, so the turns that follow a compaction are picked by
// "when" (the summariser's request, and requests whose first message is the
// summary), not by their number.

// compactWindow is the --context-window of these tests. The system prompt
// and the tool definitions alone take about 2,500 tokens; each numbered turn
// adds about 150 more, so the threshold (80%, 4,800 tokens) is passed after a
// dozen or so turns, with room either way. After a compaction the context
// (the summary and the newest ten messages) is well under the threshold.
const compactWindow = 6000

// The summariser's request is recognised by the summary prompt.
const summariserSystem = "You compact the history of a coding-agent session"

// The scripted summariser's answer.
const summaryBody = "Goal: parse the config.\nProgress: read first.txt and the notes."

// activeTasks is the block every summary must end with: the in-progress and
// pending todos, not the completed one.
const activeTasks = "## Active Tasks\n[>] parse the config\n[ ] write the tests\n[ ] update the docs"

// firstMarker is only in first.txt, read by the first turn: once that turn is
// compacted away, no request may contain it.
const firstMarker = "FIRST-FILE-MARKER-7431"

type turnJSON = map[string]any

func call(name string, input any) map[string]any { return map[string]any{"name": name, "input": input} }

// compactScript is the script of a session that reads first.txt, writes its
// todos, then reads notes.txt until the context is compacted. summariser is
// the turn answering the summariser's request; after is played once the
// summary leads the history; resumed answers a later process's prompt.
func compactScript(t *testing.T, summariser, after, resumed turnJSON) string {
	t.Helper()
	turns := []turnJSON{
		{"text": "Reading the spec.", "calls": []any{call("read_file", map[string]any{"path": "first.txt"})}},
		{"calls": []any{call("todo_write", map[string]any{"todos": []map[string]string{
			{"id": "1", "content": "read the spec", "status": "completed"},
			{"id": "2", "content": "parse the config", "status": "in_progress"},
			{"id": "3", "content": "write the tests", "status": "pending"},
			{"id": "4", "content": "update the docs", "status": "pending"},
		}})}},
	}
	// Far more reads than the window allows: the compaction comes first.
	for n := range 40 {
		turns = append(turns, turnJSON{"text": fmt.Sprintf("Reading the notes again (%d).", n),
			"calls": []any{call("read_file", map[string]any{"path": "notes.txt"})}})
	}
	summariser["when"] = map[string]any{"system_contains": summariserSystem}
	turns = append(turns, summariser)
	if resumed != nil {
		turns = append(turns, resumed) // more specific than after: first
	}
	after["when"] = map[string]any{"first_user_contains": compact.SummaryHeader}
	turns = append(turns, after)
	b, err := json.Marshal(map[string]any{"turns": turns})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeCompactFiles(t *testing.T, dir string) {
	t.Helper()
	var notes strings.Builder
	for i := range 10 {
		fmt.Fprintf(&notes, "note %d: the config parser must accept comments and trailing commas.\n", i)
	}
	first := "The spec. " + firstMarker + "\nParse config.toml into the Config struct.\n"
	for name, body := range map[string]string{"first.txt": first, "notes.txt": notes.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

type shownSession struct {
	Compaction *session.Compaction `json:"compaction"`
	Messages   []llm.Message       `json:"messages"`
}

func (h *harness) show(id string) shownSession {
	h.t.Helper()
	r := h.run("", "sessions", "show", id, "--json")
	var d shownSession
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &d) != nil {
		h.t.Fatalf("sessions show: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	return d
}

func TestCompactionKeepsActiveTodosAndResumes(t *testing.T) {
	h := newHarness(t)
	writeCompactFiles(t, h.workdir)
	summary := compact.SummaryHeader + "\n" + summaryBody + "\n\n" + activeTasks
	// Both checks are on the request the model gets: the whole summary,
	// Active Tasks included, leads it, and first.txt is gone from it.
	mustSee := map[string]any{"first_user_contains": summary, "no_message_contains": firstMarker}
	model := h.script(compactScript(t,
		turnJSON{"text": summaryBody},
		turnJSON{"text": "Compacted; parsing the config next.", "match": mustSee},
		turnJSON{"text": "Resumed with the summary.", "match": mustSee,
			"when": map[string]any{"first_user_contains": compact.SummaryHeader, "last_user_contains": "now finish the docs"}},
	))
	win := fmt.Sprint(compactWindow)

	r := h.run("", "run", "--json", "--context-window", win, "-C", h.workdir, "-m", model, "parse the config")
	if r.code != 0 || r.last()["status"] != "completed" {
		t.Fatalf("exit %d, last %v\nerrors: %v\nstderr: %s", r.code, r.last(), r.find("error"), r.stderr)
	}
	comp := r.find("compacted")
	if len(comp) != 1 {
		t.Fatalf("compacted events = %v, want exactly one", comp)
	}
	before, after := comp[0]["before_tokens"].(float64), comp[0]["after_tokens"].(float64)
	if before <= after || after <= 0 || comp[0]["fallback"] != nil || comp[0]["note"] != nil {
		t.Fatalf("compacted = %v, want the numbers and no note (a note is for a failed summary)", comp[0])
	}
	// It says why: the request passed the threshold of the window, with
	// the fixed part every request carries.
	fixed, _ := comp[0]["fixed_tokens"].(float64)
	if comp[0]["reason"] != "threshold" || comp[0]["summarised"] != true || comp[0]["context_window"] != float64(compactWindow) ||
		comp[0]["threshold_tokens"] != float64(compactWindow*8/10) || fixed < 1000 || fixed+before <= float64(compactWindow*8/10) {
		t.Fatalf("compacted = %v, want why", comp[0])
	}
	if texts := r.find("text"); texts[len(texts)-1]["text"] != "Compacted; parsing the config next." {
		t.Fatalf("the run did not end with the post-compaction turn: %v", texts[len(texts)-1])
	}
	id := r.find("session")[0]["session_id"].(string)

	// The summary is stored with the session; the full history stays.
	d := h.show(id)
	c := d.Compaction
	if c == nil || c.Summary != summary || c.Covered <= 0 || c.Covered >= len(d.Messages) {
		t.Fatalf("stored compaction = %+v (of %d messages)", c, len(d.Messages))
	}
	if c.Count != 1 || c.Summaries != 1 || c.TokensSaved != int(before-after) {
		t.Fatalf("stored compaction counts = %+v; want one summary that saved %v tokens", c, before-after)
	}
	if out := h.run("", "sessions", "show", id).stdout; !strings.Contains(out, fmt.Sprintf("compacted 1× (1 with a summary by the model), ~%d tokens saved\n", int(before-after))) {
		t.Fatalf("sessions show does not count the compaction:\n%s", out)
	}
	if d.Messages[c.Covered].Role == llm.RoleTool {
		t.Fatalf("the compaction split a tool call from its result at message %d", c.Covered)
	}
	reads := len(r.find("tool_call"))
	if want := 1 + 2*reads + 1; len(d.Messages) != want {
		t.Fatalf("stored %d messages, want all %d", len(d.Messages), want)
	}
	if !strings.Contains(d.Messages[2].Content, firstMarker) {
		t.Fatalf("the compacted tool result is not in the stored history: %+v", d.Messages[2])
	}
	// Without the stored summary the resumed request would be compacted
	// again: it would carry this whole history, more than the one whose
	// request passed the threshold above, with the same system prompt and
	// tools.
	// A second process resumes: its first request carries the stored
	// summary (the match above), and nothing is summarised again.
	r2 := h.run("", "run", "--json", "--context-window", win, "--resume", id, "-C", h.workdir, "-m", model, "now finish the docs")
	if r2.code != 0 || r2.last()["status"] != "completed" {
		t.Fatalf("resume: exit %d, last %v\nstderr: %s\nstdout: %s", r2.code, r2.last(), r2.stderr, r2.stdout)
	}
	if n := len(r2.find("compacted")); n != 0 {
		t.Fatalf("the resumed run compacted again (%d times)", n)
	}
	d2 := h.show(id)
	if d2.Compaction == nil || *d2.Compaction != *c {
		t.Fatalf("stored compaction changed on resume: %+v, was %+v", d2.Compaction, c)
	}
	if len(d2.Messages) != len(d.Messages)+2 {
		t.Fatalf("after the resume %d messages, want %d", len(d2.Messages), len(d.Messages)+2)
	}
}

func TestCompactionFallbackWhenSummarisingFails(t *testing.T) {
	h := newHarness(t)
	writeCompactFiles(t, h.workdir)
	model := h.script(compactScript(t,
		turnJSON{"error": "summariser unavailable"},
		turnJSON{"text": "Carrying on without a summary.", "match": map[string]any{
			// The fallback summary says what happened and keeps the
			// Active Tasks block; the oldest turns are gone.
			"first_user_contains":  activeTasks,
			"any_message_contains": "dropped to fit the context window (they could not be summarised)",
			"no_message_contains":  firstMarker,
		}},
		nil,
	))
	r := h.run("", "run", "--json", "--context-window", fmt.Sprint(compactWindow), "-C", h.workdir, "-m", model, "parse the config")
	if r.code != 0 || r.last()["status"] != "completed" {
		t.Fatalf("exit %d, last %v\nerrors: %v\nstderr: %s", r.code, r.last(), r.find("error"), r.stderr)
	}
	comp := r.find("compacted")
	if len(comp) != 1 || comp[0]["fallback"] != true {
		t.Fatalf("compacted events = %v, want one fallback", comp)
	}
	note, _ := comp[0]["note"].(string)
	if !strings.Contains(note, "summariser unavailable") || !strings.Contains(note, "dropped") {
		t.Fatalf("the note does not say what failed and what was done: %q", note)
	}
	if comp[0]["before_tokens"].(float64) <= comp[0]["after_tokens"].(float64) {
		t.Fatalf("compacted = %v", comp[0])
	}
	d := h.show(r.find("session")[0]["session_id"].(string))
	if d.Compaction == nil || !strings.HasSuffix(d.Compaction.Summary, activeTasks) || d.Messages[d.Compaction.Covered].Role == llm.RoleTool {
		t.Fatalf("stored compaction = %+v", d.Compaction)
	}
}

// TestFixedPartOverTheWindowEndsTheRun: a window the system prompt and
// tools alone fill ends the run with one clear error and exit 1, and no
// model call.
func TestFixedPartOverTheWindowEndsTheRun(t *testing.T) {
	h := newHarness(t)
	model := h.script(`{"turns": [{"text": "never played"}]}`)
	r := h.run("", "run", "--json", "--context-window", "2000", "-C", h.workdir, "-m", model, "hello")
	errs := r.find("error")
	if r.code != 1 || r.last()["status"] != "error" || len(errs) != 1 {
		t.Fatalf("exit %d, last %v, errors %v\nstderr: %s", r.code, r.last(), errs, r.stderr)
	}
	msg, _ := errs[0]["message"].(string)
	for _, want := range []string{"system prompt and tool definitions alone", "compaction starts at 1600 (80% of the model's 2000-token context window)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not say %q: %s", want, msg)
		}
	}
	if n := len(r.find("text")) + len(r.find("usage")) + len(r.find("compacted")); n != 0 {
		t.Fatalf("%d model answers or compactions; want none:\n%s", n, r.stdout)
	}
}

// TestCompactionOnBothEngines runs the compaction session through the
// binary on the local engine and on the Temporal engine (a worker
// process): with the same --context-window both compact at the same
// turns, with the same events.
func TestCompactionOnBothEngines(t *testing.T) {
	script := func(h *harness) string {
		return h.script(compactScript(t, turnJSON{"text": summaryBody}, turnJSON{"text": "Compacted; parsing the config next."}, nil))
	}
	run := func(h *harness, engine ...string) []map[string]any {
		t.Helper()
		writeCompactFiles(t, h.workdir)
		args := append([]string{"run", "--json", "--context-window", fmt.Sprint(compactWindow), "-C", h.workdir, "-m", script(h)}, engine...)
		r := h.run("", append(args, "parse the config")...)
		if r.code != 0 || r.last()["status"] != "completed" {
			t.Fatalf("%v: exit %d, last %v\nerrors: %v\nstderr: %s", engine, r.code, r.last(), r.find("error"), r.stderr)
		}
		return r.find("compacted")
	}
	local := run(newHarness(t))
	h := newDurableHarness(t)
	h.worker()
	remote := run(h.harness, "--engine", "temporal")
	if len(local) == 0 || !reflect.DeepEqual(local, remote) {
		t.Fatalf("compacted events differ:\nlocal    %v\nTemporal %v", local, remote)
	}
}
