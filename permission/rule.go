package permission

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Action is what a rule, or a mode's default, does with a call.
type Action int

// The actions, weakest first: a stronger matching rule wins (deny > ask >
// allow). None means no rule matched.
const (
	None Action = iota
	Allow
	Ask
	Deny
)

func (a Action) String() string {
	switch a {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return "none"
}

// ParseAction reads "allow", "ask" or "deny".
func ParseAction(s string) (Action, error) {
	switch s {
	case "allow":
		return Allow, nil
	case "ask":
		return Ask, nil
	case "deny":
		return Deny, nil
	}
	return None, fmt.Errorf("%q is not allow, ask or deny", s)
}

// Rule is one parsed rule.
type Rule struct {
	// Tool is the tool name; a trailing "*" makes it a prefix
	// ("mcp__github__*").
	Tool string
	// Specifier narrows the rule to some calls of the tool; "" matches
	// every call.
	Specifier string
	// Action is the list the rule is in.
	Action Action
	// Source says where the rule comes from, for messages and doctor
	// ("~/.harness9/config.toml", "--allow").
	Source string
}

// String is the rule as written: tool or tool(specifier).
func (r Rule) String() string {
	if r.Specifier == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Specifier + ")"
}

// maxRule bounds a rule's length; a longer one is a mistake.
const maxRule = 4096

// Parse reads one rule, "tool" or "tool(specifier)". The error says what is
// wrong with it; callers add where it came from.
func Parse(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Rule{}, fmt.Errorf("the rule is empty")
	}
	if len(s) > maxRule {
		return Rule{}, fmt.Errorf("the rule is longer than %d bytes", maxRule)
	}
	name, spec, hasSpec := strings.Cut(s, "(")
	if hasSpec {
		if !strings.HasSuffix(spec, ")") {
			return Rule{}, fmt.Errorf("rule %q: the specifier must end with \")\", as in bash(git diff:*)", s)
		}
		spec = strings.TrimSpace(strings.TrimSuffix(spec, ")"))
		if spec == "" {
			return Rule{}, fmt.Errorf("rule %q: the parentheses are empty; write just %q for every call", s, name)
		}
	} else if strings.Contains(s, ")") {
		return Rule{}, fmt.Errorf("rule %q: \")\" without \"(\"", s)
	}
	name = strings.TrimSpace(name)
	if err := checkToolName(name); err != nil {
		return Rule{}, fmt.Errorf("rule %q: %w", s, err)
	}
	r := Rule{Tool: name, Specifier: spec}
	if err := r.checkSpecifier(); err != nil {
		return Rule{}, fmt.Errorf("rule %q: %w", s, err)
	}
	return r, nil
}

// checkToolName accepts the names models' APIs accept (letters, digits, _
// and -), with an optional trailing "*".
func checkToolName(name string) error {
	if name == "" {
		return fmt.Errorf("the tool name is missing")
	}
	body := strings.TrimSuffix(name, "*")
	for _, c := range body {
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return fmt.Errorf("the tool name %q may hold only letters, digits, _ and -, with an optional * at the end", name)
		}
	}
	return nil
}

// checkSpecifier refuses specifiers no call could sensibly match: a bad
// glob, an empty domain, ":*" anywhere but the end.
func (r Rule) checkSpecifier() error {
	spec := r.Specifier
	if spec == "" {
		return nil
	}
	if d, ok := strings.CutPrefix(spec, "domain:"); ok {
		if d == "" || strings.ContainsAny(d, "/: ") {
			return fmt.Errorf("domain:%s is not a host name like example.com", d)
		}
		return nil
	}
	if i := strings.Index(spec, ":*"); i >= 0 && i != len(spec)-2 {
		return fmt.Errorf("\":*\" may only end a command prefix, as in bash(git diff:*)")
	}
	if strings.HasSuffix(spec, ":*") && strings.TrimSpace(strings.TrimSuffix(spec, ":*")) == "" {
		return fmt.Errorf("the command prefix before \":*\" is empty; write just %q for every call", r.Tool)
	}
	// A specifier without ":*" and without spaces may be a path glob; a
	// command ("npm test") is checked when it is matched.
	if !strings.HasSuffix(spec, ":*") && !strings.ContainsAny(spec, " \t") && !doublestar.ValidatePattern(spec) {
		return fmt.Errorf("%q is not a valid path glob", spec)
	}
	return nil
}

// MatchesTool reports whether r names the tool called name (exactly, or
// by its prefix when r's tool ends in "*"), whatever its specifier.
func (r Rule) MatchesTool(name string) bool { return matchTool(r.Tool, name) }
