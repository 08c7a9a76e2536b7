package tool

import "context"

// Progress receives a tool's output while it runs (a command's output as
// it is written), for display only: the model still sees the Result.
// Implementations must be safe for concurrent use and must not block.
type Progress func(text string)

type progressKey struct{}

// ContextWithProgress returns ctx carrying p, which tools that produce
// output over time (bash) call as they go.
func ContextWithProgress(ctx context.Context, p Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// ProgressFrom returns the context's Progress, or nil when nobody listens.
func ProgressFrom(ctx context.Context) Progress {
	p, _ := ctx.Value(progressKey{}).(Progress)
	return p
}
