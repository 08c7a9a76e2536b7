package tool

import "context"

// Refusals is told of each call a Registry's gate refuses (the mode's
// tool gate, Plan Mode's read-only bash check, deny rules): telemetry
// counts them. It must be safe for concurrent use and must not block.
type Refusals func(name string, err error)

type refusalsKey struct{}

// ContextWithRefusals returns ctx carrying r, which the Registry calls
// when its gate refuses a call made with ctx.
func ContextWithRefusals(ctx context.Context, r Refusals) context.Context {
	return context.WithValue(ctx, refusalsKey{}, r)
}

// refused tells ctx's Refusals, if any, that the gate refused the call.
func refused(ctx context.Context, name string, err error) {
	if r, _ := ctx.Value(refusalsKey{}).(Refusals); r != nil {
		r(name, err)
	}
}
