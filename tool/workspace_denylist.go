package tool

import "slices"

// DenyList returns the absolute locations the workspace refuses, each
// lexically and with its symlinks resolved. A kernel sandbox confining the
// same agent's commands denies the same list, so a file the tools refuse
// is also out of reach of bash.
func (w *Workspace) DenyList() []string { return slices.Clone(w.deny) }
