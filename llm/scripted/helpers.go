package scripted

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/harness9/harness9/llm"
)

// Call builds a tool call for a Turn. input is marshalled to JSON, except a
// string, []byte or json.RawMessage, which is used verbatim (so a test can
// send malformed arguments). The ID is left empty; the provider assigns
// "call_<turn>_<n>" when it plays the turn. Call panics if input cannot be
// marshalled, which is a mistake in the script.
func Call(name string, input any) llm.ToolCall {
	var raw json.RawMessage
	switch v := input.(type) {
	case nil:
		raw = json.RawMessage("{}")
	case string:
		raw = json.RawMessage(v)
	case []byte:
		raw = append(json.RawMessage(nil), v...)
	case json.RawMessage:
		raw = append(json.RawMessage(nil), v...)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			panic(fmt.Sprintf("scripted.Call(%q): cannot marshal input: %v", name, err))
		}
		raw = b
	}
	return llm.ToolCall{Name: name, Input: raw}
}

// Calls is a shorthand for a Turn's Calls field.
func Calls(calls ...llm.ToolCall) []llm.ToolCall { return calls }

// HasImages matches requests whose messages carry at least n images.
func HasImages(n int) Matcher {
	return func(r llm.Request) bool {
		count := 0
		for _, m := range r.Messages {
			count += len(m.Images)
		}
		return count >= n
	}
}

// HasTool matches requests that offer the named tool to the model.
func HasTool(name string) Matcher {
	return func(r llm.Request) bool { return hasTool(r, name) }
}

// NoTool matches requests that do not offer the named tool.
func NoTool(name string) Matcher {
	return func(r llm.Request) bool { return !hasTool(r, name) }
}

// LastUserContains matches requests whose last user message contains s.
func LastUserContains(s string) Matcher {
	return func(r llm.Request) bool {
		m, ok := lastOf(r, llm.RoleUser)
		return ok && strings.Contains(m.Content, s)
	}
}

// LastToolResultContains matches requests whose last message is a tool
// result containing s.
func LastToolResultContains(s string) Matcher {
	return func(r llm.Request) bool {
		if len(r.Messages) == 0 {
			return false
		}
		m := r.Messages[len(r.Messages)-1]
		return m.Role == llm.RoleTool && strings.Contains(m.Content, s)
	}
}

// SystemContains matches requests whose system prompt contains s.
func SystemContains(s string) Matcher {
	return func(r llm.Request) bool { return strings.Contains(r.System, s) }
}

// FirstUserContains matches requests whose first user message contains s.
// After a compaction the first user message is the summary.
func FirstUserContains(s string) Matcher {
	return func(r llm.Request) bool {
		for _, m := range r.Messages {
			if m.Role == llm.RoleUser {
				return strings.Contains(m.Content, s)
			}
		}
		return false
	}
}

// AnyMessageContains matches requests where some message's text contains s.
func AnyMessageContains(s string) Matcher {
	return func(r llm.Request) bool { return anyMessageContains(r, s) }
}

// NoMessageContains matches requests where no message's text contains s,
// for example to check that a compaction dropped an old tool result.
func NoMessageContains(s string) Matcher {
	return func(r llm.Request) bool { return !anyMessageContains(r, s) }
}

// All matches requests every matcher accepts.
func All(ms ...Matcher) Matcher {
	return func(r llm.Request) bool {
		for _, m := range ms {
			if !m(r) {
				return false
			}
		}
		return true
	}
}

// Any matches requests at least one matcher accepts.
func Any(ms ...Matcher) Matcher {
	return func(r llm.Request) bool {
		return slices.ContainsFunc(ms, func(m Matcher) bool { return m(r) })
	}
}

// anyMessageContains looks in every message's text and tool-call inputs.
func anyMessageContains(r llm.Request, s string) bool {
	for _, m := range r.Messages {
		if strings.Contains(m.Content, s) {
			return true
		}
		for _, c := range m.ToolCalls {
			if strings.Contains(string(c.Input), s) {
				return true
			}
		}
	}
	return false
}

func hasTool(r llm.Request, name string) bool {
	return slices.ContainsFunc(r.Tools, func(t llm.ToolDef) bool { return t.Name == name })
}

func lastOf(r llm.Request, role llm.Role) (llm.Message, bool) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == role {
			return r.Messages[i], true
		}
	}
	return llm.Message{}, false
}
