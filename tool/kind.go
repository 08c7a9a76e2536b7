package tool

// Kind is what sort of thing a tool does, for front ends that show calls by
// category: an editor (the Agent Client Protocol's tool kinds) picks an
// icon and a layout from it. It describes; it decides nothing (permissions
// and Plan Mode look at ReadOnly and the other properties).
type Kind string

// The kinds, named as the Agent Client Protocol names them.
const (
	KindRead       Kind = "read"        // reads files or data
	KindEdit       Kind = "edit"        // changes files
	KindDelete     Kind = "delete"      // removes files
	KindMove       Kind = "move"        // moves or renames files
	KindSearch     Kind = "search"      // looks for files or text
	KindExecute    Kind = "execute"     // runs a command
	KindThink      Kind = "think"       // the agent's own bookkeeping (a todo list, a sub-agent)
	KindFetch      Kind = "fetch"       // reads from the network
	KindSwitchMode Kind = "switch_mode" // asks to leave the current mode (a plan for approval)
	KindOther      Kind = "other"
)

// Kinded is implemented by tools that say what kind of thing they do.
type Kinded interface {
	Kind() Kind
}

// KindOf returns t's kind, or KindOther when t does not say.
func KindOf(t Tool) Kind {
	if k, ok := t.(Kinded); ok && k.Kind() != "" {
		return k.Kind()
	}
	return KindOther
}
