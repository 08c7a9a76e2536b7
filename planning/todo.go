package planning

import (
	"strings"
	"sync"

	"github.com/harness9/harness9/planning/plan"
)

// TodoStatus is the state of one todo item (plan.TodoStatus).
type TodoStatus = plan.TodoStatus

// The todo states. Transition rules are enforced by the todo_write tool, not
// by TodoStore.
const (
	TodoPending    = plan.TodoPending
	TodoInProgress = plan.TodoInProgress
	TodoCompleted  = plan.TodoCompleted
	TodoCancelled  = plan.TodoCancelled
)

// TodoItem is one entry of the todo list (plan.TodoItem).
type TodoItem = plan.TodoItem

// TodoStore is a concurrency-safe todo list with full-replace semantics. It
// stores without judgment: validation lives in the todo_write tool, so tests
// and restore paths can write any state directly.
type TodoStore struct {
	mu    sync.RWMutex
	items []TodoItem
}

// NewTodoStore returns an empty store.
func NewTodoStore() *TodoStore { return &TodoStore{} }

// Write replaces the whole list and returns a copy of it. Both the input and
// the returned slice are independent of the store's own storage.
func (s *TodoStore) Write(items []TodoItem) []TodoItem {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items = make([]TodoItem, len(items))
	copy(s.items, items)
	return s.copyLocked()
}

// Read returns a copy of the list; never nil.
func (s *TodoStore) Read() []TodoItem {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.copyLocked()
}

func (s *TodoStore) copyLocked() []TodoItem {
	out := make([]TodoItem, len(s.items))
	copy(out, s.items)
	return out
}

// FormatForInjection renders the active items (pending "[ ]", in progress
// "[>]") one per line, for the compaction summary's Active Tasks block. It
// returns "" when nothing is active.
func (s *TodoStore) FormatForInjection() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var b strings.Builder
	for _, it := range s.items {
		var prefix string
		switch it.Status {
		case TodoPending:
			prefix = "[ ]"
		case TodoInProgress:
			prefix = "[>]"
		default:
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(prefix + " " + it.Content)
	}
	return b.String()
}

// Progress counts items: done is completed items, active is pending plus
// in-progress, total is every item.
func Progress(items []TodoItem) (done, active, total int) { return plan.Progress(items) }

// Plan is what submit_plan records: a stable proposal the user approves
// (plan.Plan).
type Plan = plan.Plan
