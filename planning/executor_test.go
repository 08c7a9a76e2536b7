package planning

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
)

type roundRecord struct{ round, done, total int }

type recordingObserver struct {
	rounds  []roundRecord
	stalled []int
}

func (o *recordingObserver) Round(round, done, total int) {
	o.rounds = append(o.rounds, roundRecord{round, done, total})
}
func (o *recordingObserver) Stalled(rounds int) { o.stalled = append(o.stalled, rounds) }

// fakeModel is a RoundFunc over a TodoStore: each round applies the next
// scripted step to the list.
type fakeModel struct {
	store   *TodoStore
	step    func(round int, items []TodoItem) []TodoItem
	prompts []string
}

func (m *fakeModel) run(_ context.Context, prompt string) error {
	m.prompts = append(m.prompts, prompt)
	m.store.Write(m.step(len(m.prompts), m.store.Read()))
	return nil
}

func newFake(n int, step func(int, []TodoItem) []TodoItem) *fakeModel {
	s := NewTodoStore()
	var items []TodoItem
	for i := 1; i <= n; i++ {
		items = append(items, TodoItem{ID: fmt.Sprint(i), Content: fmt.Sprint("step ", i), Status: TodoPending})
	}
	s.Write(items)
	return &fakeModel{store: s, step: step}
}

// setFirst changes the first item with status from to status to.
func setFirst(items []TodoItem, from, to TodoStatus) []TodoItem {
	for i := range items {
		if items[i].Status == from {
			items[i].Status = to
			return items
		}
	}
	return items
}

func pendingCount(items []TodoItem) int {
	n := 0
	for _, it := range items {
		if it.Status == TodoPending {
			n++
		}
	}
	return n
}

func TestExecutorStallsWhenModelOnlyFlipsToInProgress(t *testing.T) {
	var pendingAfter []int
	m := newFake(6, func(_ int, items []TodoItem) []TodoItem {
		items = setFirst(items, TodoPending, TodoInProgress) // looks busy, finishes nothing
		pendingAfter = append(pendingAfter, pendingCount(items))
		return items
	})
	obs := &recordingObserver{}
	out, err := NewExecutor(m.run, m.store.Read, WithObserver(obs)).Run(context.Background())
	if err != nil || out != ExecStalled {
		t.Fatalf("Run = %v, %v; want stalled", out, err)
	}
	if len(m.prompts) != 3 {
		t.Fatalf("ran %d rounds, want exactly 3", len(m.prompts))
	}
	// A detector counting pending items would have been fooled: pending
	// dropped in every single round.
	prev := 6
	for _, p := range pendingAfter {
		if p >= prev {
			t.Fatalf("pending counts %v: the fake must reduce pending each round", pendingAfter)
		}
		prev = p
	}
	if !reflect.DeepEqual(obs.stalled, []int{3}) {
		t.Errorf("Stalled calls = %v, want [3]", obs.stalled)
	}
	wantRounds := []roundRecord{{1, 0, 6}, {2, 0, 6}, {3, 0, 6}}
	if !reflect.DeepEqual(obs.rounds, wantRounds) {
		t.Errorf("Round calls = %v, want %v", obs.rounds, wantRounds)
	}
	if m.prompts[0] != ExecPrompt || m.prompts[1] != ExecContinuePrompt || m.prompts[2] != ExecContinuePrompt {
		t.Errorf("prompts: first must be ExecPrompt, the rest ExecContinuePrompt")
	}
}

func TestExecutorProgressResetsCounter(t *testing.T) {
	// Completes an item only in rounds 3 and 6; 2 idle rounds in between
	// never reach the threshold, then 3 idle rounds (7, 8, 9) do.
	m := newFake(10, func(round int, items []TodoItem) []TodoItem {
		if round == 3 || round == 6 {
			return setFirst(items, TodoPending, TodoCompleted)
		}
		return items
	})
	out, err := NewExecutor(m.run, m.store.Read).Run(context.Background())
	if err != nil || out != ExecStalled || len(m.prompts) != 9 {
		t.Fatalf("Run = %v, %v after %d rounds; want stalled after 9", out, err, len(m.prompts))
	}
}

// The stall counts the rounds without progress, not every round run: a
// first round that completed an item is not one of them.
func TestExecutorStallCountsRoundsWithoutProgress(t *testing.T) {
	m := newFake(5, func(round int, items []TodoItem) []TodoItem {
		if round == 1 {
			return setFirst(items, TodoPending, TodoCompleted)
		}
		return items
	})
	obs := &recordingObserver{}
	out, err := NewExecutor(m.run, m.store.Read, WithObserver(obs)).Run(context.Background())
	if err != nil || out != ExecStalled || len(m.prompts) != 4 {
		t.Fatalf("Run = %v, %v after %d rounds; want stalled after 4", out, err, len(m.prompts))
	}
	if !reflect.DeepEqual(obs.stalled, []int{DefaultStallThreshold}) {
		t.Errorf("Stalled calls = %v, want [%d]", obs.stalled, DefaultStallThreshold)
	}
}

func TestExecutorCompletes(t *testing.T) {
	m := newFake(3, func(_ int, items []TodoItem) []TodoItem {
		return setFirst(items, TodoPending, TodoCompleted)
	})
	obs := &recordingObserver{}
	out, err := NewExecutor(m.run, m.store.Read, WithObserver(obs)).Run(context.Background())
	if err != nil || out != ExecCompleted || len(m.prompts) != 3 {
		t.Fatalf("Run = %v, %v after %d rounds; want completed after 3", out, err, len(m.prompts))
	}
	if len(obs.stalled) != 0 {
		t.Errorf("Stalled called on completion: %v", obs.stalled)
	}
	if want := []roundRecord{{1, 0, 3}, {2, 1, 3}, {3, 2, 3}}; !reflect.DeepEqual(obs.rounds, want) {
		t.Errorf("Round calls = %v, want %v", obs.rounds, want)
	}
}

func TestExecutorCancelledItemsDoNotBlockCompletion(t *testing.T) {
	m := newFake(2, func(_ int, items []TodoItem) []TodoItem {
		items = setFirst(items, TodoPending, TodoCompleted)
		return setFirst(items, TodoPending, TodoCancelled)
	})
	out, err := NewExecutor(m.run, m.store.Read).Run(context.Background())
	if err != nil || out != ExecCompleted || len(m.prompts) != 1 {
		t.Fatalf("Run = %v, %v after %d rounds", out, err, len(m.prompts))
	}
}

func TestExecutorNothingToDo(t *testing.T) {
	calls := 0
	run := func(context.Context, string) error { calls++; return nil }
	out, err := NewExecutor(run, func() []TodoItem { return []TodoItem{item("1", TodoCompleted)} }).Run(context.Background())
	if err != nil || out != ExecCompleted || calls != 0 {
		t.Fatalf("Run = %v, %v with %d rounds; want completed without a round", out, err, calls)
	}
}

func TestExecutorMaxRounds(t *testing.T) {
	m := newFake(100, func(_ int, items []TodoItem) []TodoItem {
		return setFirst(items, TodoPending, TodoCompleted) // always progressing
	})
	obs := &recordingObserver{}
	out, err := NewExecutor(m.run, m.store.Read, WithMaxRounds(5), WithObserver(obs)).Run(context.Background())
	if err != nil || out != ExecStalled || len(m.prompts) != 5 {
		t.Fatalf("Run = %v, %v after %d rounds; want stalled after 5", out, err, len(m.prompts))
	}
	if !reflect.DeepEqual(obs.stalled, []int{0}) {
		t.Errorf("Stalled calls = %v, want [0] (every round completed an item)", obs.stalled)
	}
}

func TestExecutorStallThresholdOption(t *testing.T) {
	m := newFake(2, func(_ int, items []TodoItem) []TodoItem { return items })
	out, _ := NewExecutor(m.run, m.store.Read, WithStallThreshold(1)).Run(context.Background())
	if out != ExecStalled || len(m.prompts) != 1 {
		t.Fatalf("threshold 1: %v after %d rounds", out, len(m.prompts))
	}
}

func TestExecutorContinuationPrompts(t *testing.T) {
	m := newFake(1, func(_ int, items []TodoItem) []TodoItem { return setFirst(items, TodoPending, TodoCompleted) })
	if _, err := NewExecutor(m.run, m.store.Read, AsContinuation()).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(m.prompts) != 1 || m.prompts[0] != ExecContinuePrompt {
		t.Fatalf("prompts = %q, want only ExecContinuePrompt", m.prompts)
	}
}

func TestExecutorRoundErrorStops(t *testing.T) {
	boom := errors.New("provider unavailable")
	calls := 0
	run := func(context.Context, string) error {
		calls++
		if calls == 2 {
			return boom
		}
		return nil
	}
	_, err := NewExecutor(run, func() []TodoItem { return []TodoItem{item("1", TodoPending)} }).Run(context.Background())
	if !errors.Is(err, boom) || calls != 2 {
		t.Fatalf("err = %v after %d calls; want the round's error after 2", err, calls)
	}
}

func TestExecutorCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	run := func(ctx context.Context, _ string) error {
		calls++
		if calls == 2 {
			cancel()
			return ctx.Err()
		}
		return nil
	}
	todos := func() []TodoItem { return []TodoItem{item("1", TodoPending)} }
	if _, err := NewExecutor(run, todos).Run(ctx); !errors.Is(err, context.Canceled) || calls != 2 {
		t.Fatalf("err = %v after %d calls; want context.Canceled after 2", err, calls)
	}
	// A round that swallows the cancellation still stops before the next one.
	ctx2, cancel2 := context.WithCancel(context.Background())
	calls = 0
	swallow := func(context.Context, string) error { calls++; cancel2(); return nil }
	if _, err := NewExecutor(swallow, todos).Run(ctx2); !errors.Is(err, context.Canceled) || calls != 1 {
		t.Fatalf("err = %v after %d calls; want context.Canceled after 1", err, calls)
	}
}

func TestExecOutcomeString(t *testing.T) {
	if ExecCompleted.String() != "completed" || ExecStalled.String() != "stalled" {
		t.Fatal("outcome names")
	}
}
