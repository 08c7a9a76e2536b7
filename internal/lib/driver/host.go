package driver

import "errors"

// A host that runs every step on a fresh engine (package durable, where a
// step is a Temporal activity on any worker) cannot hold a loop open
// between steps; it asks for the engine's hosted steps instead. Package
// agent registers how to make them, so that the engine's public API carries
// no step plumbing: this is the seam between the two.

// hosted makes the hosted steps of an engine; set by package agent.
var hosted func(engine any, emit func(event any)) (Steps, error)

// RegisterHost is called once, by package agent, with the function that
// makes an engine's hosted steps.
func RegisterHost(f func(engine any, emit func(event any)) (Steps, error)) { hosted = f }

// Hosted returns the steps of engine (an *agent.Engine opened on a stored
// session) for a host that runs each step on a fresh engine. Each step
// takes the engine's single-run lock, reloads what it needs from the store,
// does its piece, closes its loop (End is a no-op) and saves; a step retried
// after an earlier attempt stored its work does not repeat it; the step's
// events, without the deltas of streamed text, go to emit.
//
// A call that needs the user's permission, with no answer for it in
// Loop.Answers, ends the Tools step where it stands: the question (an
// *agent.ApprovalRequest, whose Respond does nothing) goes to emit, the
// calls before it have their results stored, it and the calls after it
// have none. The host puts the question to the user, however long that
// takes, and runs the Tools step again with the answer in Loop.Answers:
// the calls answered already are not run again, the answered call runs (or
// is refused) without being asked again, and the step goes on to the next
// call. Loop.Memo.Granted carries what "always" answers allowed from step
// to step.
//
// A step that ends its loop with an error (Result.End set: a blocking hook)
// returns that error; any other error is a failure the host may retry.
func Hosted(engine any, emit func(event any)) (Steps, error) {
	if hosted == nil {
		return nil, errors.New("driver: no engine registered its hosted steps (import package agent)")
	}
	return hosted(engine, emit)
}
