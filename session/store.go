// Package session persists conversations: sessions, their ordered messages,
// and a per-session state row holding the planning state (todos, evidence
// counter, plan, status, task directory) and the compaction summary.
package session

import (
	"context"
	"errors"
	"time"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning/plan"
)

// ErrNotFound is returned (wrapped) when a session id matches nothing.
var ErrNotFound = errors.New("session not found")

// ErrAmbiguous is returned (wrapped) when an id prefix matches more than one session.
var ErrAmbiguous = errors.New("session id prefix is ambiguous")

// Session is one conversation's metadata.
type Session struct {
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	Workdir string    `json:"workdir"`
	Model   string    `json:"model"` // "provider/model"
	Title   string    `json:"title"`
	Mode    plan.Mode `json:"mode"`
	// ParentID is the session whose task call started this one as a
	// sub-agent; "" for a top-level session. It is set by Create and
	// never changes.
	ParentID string `json:"parent_id,omitempty"`
	// MessageCount is filled by List and Get.
	MessageCount int `json:"message_count"`
}

// State is the per-session planning and compaction state, saved whole.
type State struct {
	Todos []plan.TodoItem `json:"todos"`
	// Evidence counts successful tool calls other than todo_write and
	// submit_plan since the last successful todo_write (the evidence gate).
	Evidence int         `json:"evidence"`
	Status   plan.Status `json:"status"`
	Plan     *plan.Plan  `json:"plan,omitempty"`
	// TaskDir is the approved plan's task directory, if any.
	TaskDir string `json:"task_dir,omitempty"`
	// PlanFile is this session's plans/<ts>-<id8>.md file, fixed once chosen.
	PlanFile   string      `json:"plan_file,omitempty"`
	Compaction *Compaction `json:"compaction,omitempty"`
	// ContextTokens is the context size of the session's last model call,
	// so a front end opening the session again shows the context gauge it
	// had; 0 when unknown.
	ContextTokens int `json:"context_tokens,omitempty"`
}

// Compaction is what compaction changed in the session's model requests:
// a summary that stands in for the first Covered messages, and the tool
// results up to Elided sent shortened to a line and a note. The messages
// themselves stay in the store.
type Compaction struct {
	Summary string `json:"summary"`
	Covered int    `json:"covered"`
	// Elided is where shortened tool outputs end: the tool results among
	// messages Covered to Elided-1 are sent as compact.Elide makes them.
	Elided int `json:"elided,omitempty"`
	// BeforeTokens and AfterTokens are the estimated size of the history
	// as sent before and after the latest compaction.
	BeforeTokens int `json:"before_tokens"`
	AfterTokens  int `json:"after_tokens"`
	// Count is the number of compactions so far, Summaries how many of
	// them had the model summarise (the others only shortened old tool
	// outputs), and TokensSaved what they took out of the requests in
	// all: the sum of their BeforeTokens - AfterTokens.
	Count       int `json:"count"`
	Summaries   int `json:"summaries"`
	TokensSaved int `json:"tokens_saved"`
}

// ListOptions filters List. Zero values mean no filter.
type ListOptions struct {
	Workdir string
	Limit   int
	// Sub-agent sessions (ParentID != "") are left out unless
	// IncludeChildren is set. A non-empty Parent lists only the children
	// of that session (by full id).
	IncludeChildren bool
	Parent          string
}

// Matches reports whether s passes the filters of o other than Limit.
// Stores that filter in Go use it, so every backend agrees.
func (o ListOptions) Matches(s Session) bool {
	if o.Workdir != "" && s.Workdir != o.Workdir {
		return false
	}
	if o.Parent != "" {
		return s.ParentID == o.Parent
	}
	return o.IncludeChildren || s.ParentID == ""
}

// Summary is a session as a listing shows it: its row, its planning status
// and how far its todo list has come, read without decoding the rest of its
// state (plan, compaction summary), which can be many kilobytes a session.
// Its JSON is the session's fields followed by status, todos_done and
// todos_total.
type Summary struct {
	Session
	// Status is the saved planning status; plan.StatusIdle when no
	// state was saved or its status is empty.
	Status plan.Status `json:"status"`
	// TodosDone and TodosTotal are the done and total counts of
	// plan.Progress over the saved todo list: done counts completed
	// items only, total every item (cancelled ones included).
	TodosDone  int `json:"todos_done"`
	TodosTotal int `json:"todos_total"`
}

// Store persists sessions. Implementations must be safe for concurrent use,
// including by several processes sharing one database.
type Store interface {
	// Create inserts a new session. ID, Created and Updated are filled when empty.
	Create(ctx context.Context, s *Session) error
	// Get returns a session by full id or unique id prefix.
	Get(ctx context.Context, id string) (Session, error)
	// List returns sessions, most recently updated first.
	List(ctx context.Context, opts ListOptions) ([]Session, error)
	// ListSummaries returns what List returns, each session with its
	// planning status and todo counts, in one round trip rather than a
	// LoadState per session.
	ListSummaries(ctx context.Context, opts ListOptions) ([]Summary, error)
	// Update saves Title, Model and Mode and bumps Updated.
	Update(ctx context.Context, s Session) error
	// Delete removes a session, its messages and its state.
	Delete(ctx context.Context, id string) error
	// AppendMessage adds a message at the end of the session's history.
	AppendMessage(ctx context.Context, sessionID string, m llm.Message) error
	// Messages returns the whole history in order.
	Messages(ctx context.Context, sessionID string) ([]llm.Message, error)
	// MessagesFrom returns the history from the message at index from
	// (0-based) on, in order; from at or past the end gives an empty
	// slice. A resume whose compaction summary stands in for the first
	// messages loads only the rest.
	MessagesFrom(ctx context.Context, sessionID string, from int) ([]llm.Message, error)
	// LoadState returns the saved state, or a zero State if none was saved.
	LoadState(ctx context.Context, sessionID string) (State, error)
	// SaveState replaces the saved state.
	SaveState(ctx context.Context, sessionID string, st State) error
	Close() error
}

// Summarize returns the Summary of a session with state st: what a store
// that holds decoded states returns from ListSummaries.
func Summarize(sess Session, st State) Summary {
	done, _, total := plan.Progress(st.Todos)
	return NewSummary(sess, st.Status, done, total)
}

// NewSummary returns the Summary of a session whose saved status and todo
// counts a store read without decoding its state; an empty status (none
// saved) is plan.StatusIdle.
func NewSummary(sess Session, status plan.Status, done, total int) Summary {
	if status == "" {
		status = plan.StatusIdle
	}
	return Summary{Session: sess, Status: status, TodosDone: done, TodosTotal: total}
}
