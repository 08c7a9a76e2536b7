package tool

// ReadOnlyCapable is implemented by tools that change things in general but
// can run a call without changing anything when the context asks them to
// (sandbox.ContextWithPolicy with sandbox.ReadOnly): bash confined by the
// kernel sandbox. CanRunReadOnly reports whether they can on this system; a
// tool that cannot is not offered while planning.
type ReadOnlyCapable interface {
	CanRunReadOnly() bool
}

// Contained is implemented by tools that report whether the harness can
// bound their effects (bash inside the kernel sandbox writes only the
// workdir and has no network). A tool that reports false is asked about
// before each call outside Plan Mode.
type Contained interface {
	Contained() bool
}
