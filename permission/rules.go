package permission

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Rules is a set of rules from every source, for one workdir. It is safe
// for concurrent use: an "always allow" answer adds a rule while calls are
// being decided.
type Rules struct {
	workdir string
	mu      sync.RWMutex
	rules   []Rule
}

// New returns an empty set whose path globs are relative to workdir.
func New(workdir string) *Rules { return &Rules{workdir: workdir} }

// Add parses rules and adds them to the list of action, recording source.
// A malformed rule is an error naming the rule and the source, and nothing
// is added.
func (rs *Rules) Add(action Action, source string, rules ...string) error {
	if action != Allow && action != Ask && action != Deny {
		return fmt.Errorf("%s: rules must go in allow, ask or deny", source)
	}
	parsed := make([]Rule, 0, len(rules))
	for _, s := range rules {
		r, err := Parse(s)
		if err != nil {
			return fmt.Errorf("%s: %s rule: %w", source, action, err)
		}
		r.Action, r.Source = action, source
		parsed = append(parsed, r)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, r := range parsed {
		if !slices.Contains(rs.rules, r) {
			rs.rules = append(rs.rules, r)
		}
	}
	return nil
}

// List returns the rules in the order they were added.
func (rs *Rules) List() []Rule {
	if rs == nil {
		return nil
	}
	rs.mu.RLock()
	defer rs.mu.RUnlock()
	return slices.Clone(rs.rules)
}

// Decision is the outcome for one call.
type Decision struct {
	Action Action
	// Rules are the rules that decided: one, or for a shell line allowed
	// command by command, one per command; none when the mode's default
	// did.
	Rules []Rule
}

// Rule names the deciding rules, "" for the mode's default.
func (d Decision) Rule() string {
	names := make([]string, len(d.Rules))
	for i, r := range d.Rules {
		names[i] = r.String()
	}
	return strings.Join(names, ", ")
}

// Decide returns what happens to c: the strongest matching rule (deny >
// ask > allow), or def when none matches. Among rules of the same
// strength the first added wins, so messages name a stable rule.
//
// A shell line is matched command by command: a deny or ask rule that
// covers any of its simple commands applies to the line; allow rules must
// cover every one of them, possibly one rule each. A line that is more
// than plain simple commands (substitutions, redirections to files, ...)
// is covered only by rules without a specifier.
func (rs *Rules) Decide(c Call, def Action) Decision {
	if rs == nil {
		return Decision{Action: def}
	}
	var cmds [][]string
	if c.Command != "" {
		cmds, _ = simpleCommands(c.Command)
	}
	rs.mu.RLock()
	defer rs.mu.RUnlock()
	for _, a := range []Action{Deny, Ask} {
		for _, r := range rs.rules {
			if r.Action == a && r.appliesToAny(c, cmds, rs.workdir) {
				return Decision{Action: a, Rules: []Rule{r}}
			}
		}
	}
	for _, r := range rs.rules {
		if r.Action == Allow && (r.Specifier == "" || c.Command == "") && r.matches(c, rs.workdir) {
			return Decision{Action: Allow, Rules: []Rule{r}}
		}
	}
	if by, ok := rs.allowEach(c.Tool, cmds); ok {
		return Decision{Action: Allow, Rules: by}
	}
	return Decision{Action: def}
}

// appliesToAny reports whether r matches c, or for a shell line, any of
// its simple commands.
func (r Rule) appliesToAny(c Call, cmds [][]string, workdir string) bool {
	if r.Specifier == "" || c.Command == "" {
		return r.matches(c, workdir)
	}
	if !matchTool(r.Tool, c.Tool) {
		return false
	}
	for _, words := range cmds {
		if coversCommand(r.Specifier, words) {
			return true
		}
	}
	return false
}

// allowEach finds an allow rule for every command of a shell line. Called
// with rs.mu held.
func (rs *Rules) allowEach(tool string, cmds [][]string) ([]Rule, bool) {
	if len(cmds) == 0 {
		return nil, false
	}
	var by []Rule
	for _, words := range cmds {
		found := false
		for _, r := range rs.rules {
			if r.Action == Allow && r.Specifier != "" && matchTool(r.Tool, tool) && coversCommand(r.Specifier, words) {
				found = true
				if !slices.Contains(by, r) {
					by = append(by, r)
				}
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return by, true
}
