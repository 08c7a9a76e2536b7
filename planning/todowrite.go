package planning

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/harness9/harness9/tool"
)

// DefaultCompletionLimit is how many items one todo_write may move straight
// to completed without passing through in_progress. Why 1: zero would refuse an honest "did the work, then marked it done", while
// anything higher lets a model fabricate a batch of progress (the original
// bug jumped from 2/11 to 11/11 in one call).
const DefaultCompletionLimit = 1

// PlanWriter persists the todo list somewhere outside the session (a plan
// file, a task's TODO.md). It is defined here, where it is consumed.
type PlanWriter interface {
	Write(todos []TodoItem) error
}

// PlanWriters fans one list out to several writers, for a program that
// assembles todo_write itself (the engine has agent.WithPlanWriter). Writers
// can be replaced while a tool uses it; it is safe for concurrent use. The
// zero value writes nowhere.
type PlanWriters struct {
	mu sync.RWMutex
	ws []PlanWriter
}

// Set replaces the writers.
func (p *PlanWriters) Set(ws ...PlanWriter) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ws = append([]PlanWriter(nil), ws...)
}

// Add appends a writer.
func (p *PlanWriters) Add(w PlanWriter) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ws = append(p.ws, w)
}

// Write writes the list with every writer and joins their errors.
func (p *PlanWriters) Write(todos []TodoItem) error {
	p.mu.RLock()
	ws := p.ws
	p.mu.RUnlock()
	var errs []error
	for _, w := range ws {
		if w == nil {
			continue
		}
		if err := w.Write(todos); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// TodoWriteOption configures NewTodoWriteTool.
type TodoWriteOption func(*todoWriter)

// WithEvidence turns the evidence gate on: an item may become completed only
// if e.Count() > 0, and every successful write resets e. nil leaves it off.
func WithEvidence(e *Evidence) TodoWriteOption { return func(t *todoWriter) { t.evidence = e } }

// WithPlanWriter persists every successful write with w. Failures are
// logged, never reported to the model (plan files are fail-open).
func WithPlanWriter(w PlanWriter) TodoWriteOption { return func(t *todoWriter) { t.writer = w } }

// WithCompletionLimit sets how many items may go straight to completed in
// one call (default DefaultCompletionLimit). A negative n is ignored.
func WithCompletionLimit(n int) TodoWriteOption {
	return func(t *todoWriter) {
		if n >= 0 {
			t.limit = n
		}
	}
}

// WithLogger sets where plan-writer failures are logged (default slog.Default()).
func WithLogger(l *slog.Logger) TodoWriteOption {
	return func(t *todoWriter) {
		if l != nil {
			t.log = l
		}
	}
}

type todoWriteInput struct {
	Todos []TodoItem `json:"todos,omitempty" jsonschema:"The complete todo list; it replaces the current one. Omit it or send an empty array to read the current list."`
}

type todoWriter struct {
	store    *TodoStore
	evidence *Evidence
	writer   PlanWriter
	limit    int
	log      *slog.Logger
	mu       sync.Mutex // one write at a time: validation and Write see the same previous list
}

// NewTodoWriteTool returns the todo_write tool over store: a non-empty list
// replaces the store's list after validation, an empty or omitted one reads
// it. The result is always the current list as a JSON array ("[]", never
// "null"). Refusals are error results worded so the model can fix its call;
// the loop goes on.
func NewTodoWriteTool(store *TodoStore, opts ...TodoWriteOption) tool.Tool {
	t := &todoWriter{store: store, limit: DefaultCompletionLimit, log: slog.Default()}
	for _, o := range opts {
		o(t)
	}
	return tool.New(TodoWriteName, TodoWriteDescription, t.run, tool.WithKind(tool.KindThink))
}

func (t *todoWriter) run(_ context.Context, in todoWriteInput) (tool.Result, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(in.Todos) == 0 {
		return listResult(t.store.Read())
	}
	if msg := t.validate(in.Todos, t.store.Read()); msg != "" {
		return tool.Errorf("todo_write refused: %s%s", msg, refusalUnchanged), nil
	}
	current := t.store.Write(in.Todos)
	t.evidence.Reset()
	if t.writer != nil {
		if err := t.writer.Write(current); err != nil {
			t.log.Warn("todo_write: could not persist the todo list", "err", err)
		}
	}
	return listResult(current)
}

// validate returns why next may not replace prev, or "".
func (t *todoWriter) validate(next, prev []TodoItem) string {
	prevStatus := make(map[string]TodoStatus, len(prev))
	for _, it := range prev {
		prevStatus[it.ID] = it.Status
	}
	seen := make(map[string]bool, len(next))
	var direct, completing []string
	for i, it := range next {
		switch {
		case strings.TrimSpace(it.ID) == "":
			return fmt.Sprintf("item %d has an empty id. Give every item a short unique id (\"1\", \"2\", ...) and send the whole list again.", i+1)
		case seen[it.ID]:
			return fmt.Sprintf("the id %q appears more than once. Ids must be unique; send the whole list again with distinct ids.", it.ID)
		case strings.TrimSpace(it.Content) == "":
			return fmt.Sprintf("item %q has empty content. Describe the step in a few words and send the whole list again.", it.ID)
		case !it.Status.Valid():
			return fmt.Sprintf("item %q has the unknown status %q. Use pending, in_progress, completed or cancelled.", it.ID, it.Status)
		}
		seen[it.ID] = true
		if it.Status != TodoCompleted {
			continue
		}
		prior, existed := prevStatus[it.ID]
		switch {
		case existed && prior == TodoCancelled:
			return fmt.Sprintf("item %q was cancelled and cannot be marked completed directly. If the work is needed after all, "+
				"set it back to pending or in_progress first, do the work, then mark it completed.", it.ID)
		case !existed || prior == TodoPending:
			direct = append(direct, it.ID)
			completing = append(completing, it.ID)
		case prior == TodoInProgress:
			completing = append(completing, it.ID)
		}
	}
	if len(direct) > t.limit {
		return fmt.Sprintf("%d items (%s) would go straight to completed without being in_progress; at most %d may in one call. "+
			"Work one item at a time: mark it in_progress, do the work with real tool calls, then mark it completed.",
			len(direct), quoteIDs(direct), t.limit)
	}
	if len(completing) > 0 && t.evidence != nil && t.evidence.Count() == 0 {
		return fmt.Sprintf(evidenceRefusal+", so there is no evidence that %s was done. "+
			"Do the work first (write or edit the files, run the commands, check the result), then mark it completed. "+
			"Status-only changes such as setting an item to in_progress are always accepted.", quoteIDs(completing))
	}
	return ""
}

// evidenceRefusal opens what the evidence gate answers a todo_write it
// refuses.
const evidenceRefusal = "no tool call other than todo_write has run since the previous todo_write"

// IsEvidenceRefusal reports whether output, the result of a todo_write
// call, is the evidence gate's refusal (evals count them).
func IsEvidenceRefusal(output string) bool { return strings.Contains(output, evidenceRefusal) }

func quoteIDs(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = fmt.Sprintf("%q", id)
	}
	return strings.Join(q, ", ")
}

// listResult renders the list as JSON: "[]" for an empty list, never "null",
// because to a model null reads as "no such field", not "no tasks".
func listResult(items []TodoItem) (tool.Result, error) {
	if items == nil {
		items = []TodoItem{}
	}
	b, err := json.Marshal(items)
	if err != nil {
		return tool.Result{}, fmt.Errorf("encode todo list: %w", err)
	}
	return tool.Text(string(b)), nil
}
