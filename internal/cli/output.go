package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/lib/eventjson"
	"github.com/harness9/harness9/internal/termtext"
	"github.com/harness9/harness9/planning"
)

// output renders events for `run`: JSONL on stdout with --json, otherwise
// the assistant's text on stdout and everything else on stderr. A headless
// invocation may play several streams (a plan, then its execution); output
// prints one session event and one done event for the whole invocation.
type output struct {
	e *env
	// stdout and stderr are e's, cleaned of terminal controls: what is
	// printed comes from the model, its tools and the repository, and must
	// not drive the user's terminal (termtext).
	stdout, stderr io.Writer
	jsonl          *jsonlWriter
	sawStart       bool
	midStream      bool     // text deltas printed without a closing newline
	pending        []string // notices waiting for the session event
	// traceID is the command's trace, given in the session event when
	// telemetry is on.
	traceID string
	// advise says what to do about a failed run's error ("" when nothing);
	// the advice goes to stderr in both modes.
	advise func(error) string
}

func newOutput(e *env, asJSON bool) *output {
	o := &output{e: e, stdout: termtext.Writer(e.stdout), stderr: termtext.Writer(e.stderr)}
	if asJSON {
		o.jsonl = newJSONLWriter(e.stdout)
	}
	return o
}

func (o *output) event(ev agent.Event) {
	switch e := ev.(type) {
	case agent.Done:
		if e.Status == agent.RunError && e.Err != nil && o.advise != nil {
			if a := o.advise(e.Err); a != "" {
				o.note("%s", a)
			}
		}
		return // the invocation's single done is written by done()
	case agent.SessionStarted:
		if o.sawStart {
			return
		}
		o.sawStart = true
	}
	if o.jsonl != nil {
		var err error
		if _, ok := ev.(agent.SessionStarted); ok && o.traceID != "" {
			err = o.jsonl.writeObject(eventjson.Event(ev).Set("trace_id", o.traceID))
		} else {
			err = o.jsonl.write(ev)
		}
		if err != nil {
			fmt.Fprintf(o.stderr, "harness9: cannot write an event: %v\n", err)
		}
		if _, ok := ev.(agent.SessionStarted); ok {
			for _, n := range o.pending {
				_ = o.jsonl.writeObject(eventjson.Object{}.Set("type", "notice", "message", n))
			}
			o.pending = nil
		}
		return
	}
	o.human(ev)
}

// notices queues messages the run has already said on stderr (a project's
// servers left out, a config key ignored) as JSONL notice events, written
// right after the session event.
func (o *output) notices(msgs ...string) {
	o.pending = append(o.pending, msgs...)
}

// done closes the invocation's event stream.
func (o *output) done(s agent.RunStatus) {
	if o.jsonl != nil {
		_ = o.jsonl.writeObject(eventjson.Object{}.Set("type", "done", "status", string(s)))
		return
	}
	o.endText()
	fmt.Fprintf(o.stderr, "── %s\n", s)
}

// note tells the person something; it never goes to stdout in --json mode.
func (o *output) note(format string, args ...any) {
	o.endText()
	fmt.Fprintf(o.stderr, format+"\n", args...)
}

func (o *output) endText() {
	if o.midStream {
		fmt.Fprintln(o.stdout)
		o.midStream = false
	}
}

func (o *output) human(ev agent.Event) {
	w := o.stderr
	switch e := ev.(type) {
	case agent.SessionStarted:
		fmt.Fprintf(w, "session %s · %s · %s\n", e.SessionID, e.Mode, e.Workdir)
	case agent.TextDelta:
		fmt.Fprint(o.stdout, e.Text)
		o.midStream = !strings.HasSuffix(e.Text, "\n")
	case agent.Text:
		o.endText()
	case agent.ToolCall:
		o.endText()
		fmt.Fprintf(w, "→ %s %s\n", e.Name, keyArgument(e.Input))
	case agent.ToolResult:
		if e.IsError {
			fmt.Fprintf(w, "  ✗ %s\n", firstLine(e.Output, 200))
		}
	case agent.Todos:
		writeTodos(w, e.Items)
	case agent.PlanSubmitted:
		o.endText()
		fmt.Fprintf(o.stdout, "\n# Plan: %s\n\n%s\n\n", e.Plan.Title, e.Plan.Content)
		for i, s := range e.Plan.Steps {
			fmt.Fprintf(o.stdout, "%d. %s\n", i+1, s)
		}
	case agent.Approved:
		fmt.Fprintf(w, "plan approved · task directory %s\n", e.TaskDir)
	case agent.ExecRound:
		fmt.Fprintf(w, "── execution round %d · %d/%d done\n", e.Round, e.Done, e.Total)
	case agent.Stalled:
		if e.Rounds == 0 {
			fmt.Fprintln(w, "⚠ execution stopped: it reached the round limit (max_exec_rounds in [planning] of config.toml)")
		} else {
			fmt.Fprintf(w, "⚠ execution stalled: %d rounds in a row completed no todo item\n", e.Rounds)
		}
	case agent.Compacted:
		fmt.Fprintf(w, "context compacted: %d → %d tokens %s\n", e.BeforeTokens, e.AfterTokens, e.Note)
	case agent.HookReport:
		o.endText()
		if e.Blocked {
			fmt.Fprintf(w, "⛔ %s blocked: %s\n", e.Hook, firstLine(e.Message, 300))
		} else {
			fmt.Fprintf(w, "⚠ %s failed: %s\n", e.Hook, firstLine(e.Message, 300))
		}
	case agent.Error:
		o.endText()
		fmt.Fprintf(w, "error: %s\n", e.Message)
	case agent.StreamRetry:
		o.endText()
		fmt.Fprintf(w, "the model's answer was cut off (%s); asking again — the text above is void\n", firstLine(e.Reason, 200))
	case agent.Nested:
		o.nested(e, 1)
	}
}

// nested prints a sub-agent's tool calls, failures and errors indented
// under the task call that started it (depth levels deep); its text is its
// answer to the parent, which the parent's task result carries, so it is
// not printed as the session's answer.
func (o *output) nested(n agent.Nested, depth int) {
	w, pad := o.stderr, strings.Repeat("  ", depth)
	switch e := n.Event.(type) {
	case agent.Nested:
		o.nested(e, depth+1)
	case agent.ToolCall:
		o.endText()
		fmt.Fprintf(w, "%s↳ %s %s\n", pad, e.Name, keyArgument(e.Input))
	case agent.ToolResult:
		if e.IsError {
			fmt.Fprintf(w, "%s  ✗ %s\n", pad, firstLine(e.Output, 200))
		}
	case agent.HookReport:
		o.endText()
		fmt.Fprintf(w, "%s⚠ %s: %s\n", pad, e.Hook, firstLine(e.Message, 300))
	case agent.Error:
		o.endText()
		fmt.Fprintf(w, "%serror: %s\n", pad, e.Message)
	}
}

func writeTodos(w io.Writer, items []planning.TodoItem) {
	icons := map[planning.TodoStatus]string{planning.TodoCompleted: "✔", planning.TodoInProgress: "▶", planning.TodoPending: "○", planning.TodoCancelled: "⊘"}
	for _, it := range items {
		fmt.Fprintf(w, "  %s %s\n", icons[it.Status], it.Content)
	}
}

// keyArgument picks the most telling argument of a tool call for one line.
func keyArgument(input json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(input, &m) != nil {
		return firstLine(string(input), 80)
	}
	for _, k := range []string{"path", "command", "pattern", "name", "title", "description", "url", "query"} {
		if v, ok := m[k].(string); ok {
			return firstLine(v, 100)
		}
	}
	return ""
}

func firstLine(s string, max int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}
