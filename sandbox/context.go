package sandbox

import "context"

type policyKey struct{}

// ContextWithPolicy returns a context asking the tools that run commands to
// confine them with p. The engine sets it per run from the mode: ReadOnly
// while planning, WorkspaceWrite otherwise.
func ContextWithPolicy(ctx context.Context, p Policy) context.Context {
	return context.WithValue(ctx, policyKey{}, p)
}

// PolicyFromContext returns the policy ContextWithPolicy set, or def.
func PolicyFromContext(ctx context.Context, def Policy) Policy {
	if p, ok := ctx.Value(policyKey{}).(Policy); ok {
		return p
	}
	return def
}
