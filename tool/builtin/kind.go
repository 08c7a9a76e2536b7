package builtin

import "github.com/harness9/harness9/tool"

// What kind of thing each built-in tool does (tool.Kinded), for front
// ends that show calls by category.

// Kind implements tool.Kinded.
func (*ReadFile) Kind() tool.Kind { return tool.KindRead }

// Kind implements tool.Kinded.
func (*WriteFile) Kind() tool.Kind { return tool.KindEdit }

// Kind implements tool.Kinded.
func (*EditFile) Kind() tool.Kind { return tool.KindEdit }

// Kind implements tool.Kinded: listing a directory is looking for files.
func (*ListFiles) Kind() tool.Kind { return tool.KindSearch }

// Kind implements tool.Kinded.
func (*Glob) Kind() tool.Kind { return tool.KindSearch }

// Kind implements tool.Kinded.
func (*SearchFiles) Kind() tool.Kind { return tool.KindSearch }

// Kind implements tool.Kinded.
func (*Bash) Kind() tool.Kind { return tool.KindExecute }
