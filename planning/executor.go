package planning

import (
	"context"
	"fmt"
)

// Defaults of an Executor.
const (
	// DefaultStallThreshold is how many consecutive rounds without a newly
	// completed item stop auto-execution: enough slack for a task
	// that needs a few rounds of exploration, not enough to spin for long.
	DefaultStallThreshold = 3
	// DefaultMaxRounds caps the rounds of one execution whatever happens.
	DefaultMaxRounds = 50
)

// RoundFunc runs one round: a full run loop with the given prompt. A
// non-nil error (cancellation, a provider failure) stops the execution and
// is returned by Executor.Run.
type RoundFunc func(ctx context.Context, prompt string) error

// Observer follows an execution. Round is called before each round with the
// completed and total item counts at that moment; Stalled once, when the
// execution gives up, with the number of rounds in a row that completed no
// item (the stall threshold, or fewer, even 0, when MaxRounds ended it).
type Observer interface {
	Round(round, done, total int)
	Stalled(rounds int)
}

// ExecOutcome is how an execution ended.
type ExecOutcome int

// The outcomes. ExecStalled covers both the stagnation detector and the
// MaxRounds cap.
const (
	ExecCompleted ExecOutcome = iota // no pending or in-progress item is left
	ExecStalled                      // no progress for StallThreshold rounds, or MaxRounds reached
)

// String returns "completed" or "stalled".
func (o ExecOutcome) String() string {
	switch o {
	case ExecCompleted:
		return "completed"
	case ExecStalled:
		return "stalled"
	}
	return fmt.Sprintf("outcome(%d)", int(o))
}

// ExecutorOption configures an Executor.
type ExecutorOption func(*Executor)

// WithStallThreshold sets how many consecutive rounds without progress stop
// the execution (default DefaultStallThreshold; n < 1 is ignored).
func WithStallThreshold(n int) ExecutorOption {
	return func(x *Executor) {
		if n >= 1 {
			x.threshold = n
		}
	}
}

// WithMaxRounds caps the number of rounds (default DefaultMaxRounds; n < 1
// is ignored).
func WithMaxRounds(n int) ExecutorOption {
	return func(x *Executor) {
		if n >= 1 {
			x.maxRounds = n
		}
	}
}

// WithObserver reports rounds and stalls to o.
func WithObserver(o Observer) ExecutorOption { return func(x *Executor) { x.observer = o } }

// AsContinuation makes every round use ExecContinuePrompt, for resuming an
// execution whose first round (with ExecPrompt) already happened.
func AsContinuation() ExecutorOption { return func(x *Executor) { x.continuation = true } }

// Executor drives the auto-execution of an approved plan (in a package of
// its own so the TUI and headless runs share it). The
// first round sends ExecPrompt, later rounds ExecContinuePrompt. After each
// round it reads the todo list: nothing pending or in progress means done;
// otherwise a round in which the number of completed items did not grow is
// a round without progress, and StallThreshold of those in a row stop it.
//
// Progress is counted as completed items, never as fewer pending ones: a
// model that keeps flipping items to in_progress without finishing any would
// look busy to a pending count forever.
type Executor struct {
	run          RoundFunc
	todos        func() []TodoItem
	threshold    int
	maxRounds    int
	observer     Observer
	continuation bool
}

// NewExecutor returns an Executor that runs rounds with run and reads the
// todo list with todos.
func NewExecutor(run RoundFunc, todos func() []TodoItem, opts ...ExecutorOption) *Executor {
	x := &Executor{run: run, todos: todos, threshold: DefaultStallThreshold, maxRounds: DefaultMaxRounds}
	for _, o := range opts {
		o(x)
	}
	return x
}

// Run executes rounds until the list is done (ExecCompleted), progress
// stalls or MaxRounds is reached (ExecStalled), or a round fails or ctx is
// cancelled (the error is returned; the outcome is then ExecStalled and
// only informative).
func (x *Executor) Run(ctx context.Context) (ExecOutcome, error) {
	prevDone, active, _ := Progress(x.todos())
	if active == 0 {
		return ExecCompleted, nil
	}
	stuck := 0
	for round := 1; ; round++ {
		if err := ctx.Err(); err != nil {
			return ExecStalled, err
		}
		if round > x.maxRounds {
			x.stalled(stuck)
			return ExecStalled, nil
		}
		if x.observer != nil {
			done, _, total := Progress(x.todos())
			x.observer.Round(round, done, total)
		}
		prompt := ExecContinuePrompt
		if round == 1 && !x.continuation {
			prompt = ExecPrompt
		}
		if err := x.run(ctx, prompt); err != nil {
			return ExecStalled, err
		}
		done, active, _ := Progress(x.todos())
		if active == 0 {
			return ExecCompleted, nil
		}
		if done > prevDone {
			stuck = 0
		} else {
			stuck++
		}
		prevDone = done
		if stuck >= x.threshold {
			x.stalled(stuck)
			return ExecStalled, nil
		}
	}
}

func (x *Executor) stalled(rounds int) {
	if x.observer != nil {
		x.observer.Stalled(rounds)
	}
}
