package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// lazySchema is a tool's resolved schema, made at its first call: most
// tools of a run are never called, and resolving every schema when an
// engine starts (patterns compiled, references followed) cost a headless
// run several milliseconds before its first request.
type lazySchema struct {
	once     sync.Once
	tool     Tool
	resolved *jsonschema.Resolved
}

// get returns the resolved schema, nil when the tool's schema is not
// validated (or l is nil).
func (l *lazySchema) get() *jsonschema.Resolved {
	if l == nil {
		return nil
	}
	l.once.Do(func() { l.resolved = resolveSchema(l.tool) })
	return l.resolved
}

// resolveSchema prepares t's input schema for validation, once, when t is
// registered. A schema jsonschema-go cannot resolve (a remote $ref in an MCP
// server's schema, say) yields nil: such a tool's input goes unvalidated to
// the tool, which checks it as it always had to.
func resolveSchema(t Tool) *jsonschema.Resolved {
	raw := t.Schema()
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil
	}
	return r
}

// validateInput checks a call's arguments against the schema the model was
// given, so a missing or mistyped field is reported to the model in one
// message that names it, before the tool runs.
func validateInput(name string, schema *jsonschema.Resolved, input json.RawMessage) error {
	trimmed := bytes.TrimSpace(input)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		trimmed = []byte("{}")
	}
	var v any
	if err := json.Unmarshal(trimmed, &v); err != nil {
		return fmt.Errorf("%s: arguments are not valid JSON; send one JSON object matching the tool's schema", name)
	}
	if err := schema.Validate(v); err != nil {
		return fmt.Errorf("%s: arguments do not match the schema: %s; correct them and call %s again", name, describeSchemaError(err), name)
	}
	return nil
}

// Compiled on first use (a schema error), not at every process start.
var (
	typeMismatch = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^type: .* has type "(\w+)", want "(\w+)"$`) })
	nameList     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\["([^"]*)"\]$`) })
)

// describeSchemaError rewrites jsonschema-go's message in the words of the
// arguments: "validating root: validating /properties/n: type: y has type
// "string", want "integer"" becomes `field "n" must be an integer, got a
// string`.
func describeSchemaError(err error) string {
	msg := err.Error()
	var field []string
	for {
		rest, ok := strings.CutPrefix(msg, "validating ")
		if !ok {
			break
		}
		ptr, after, ok := strings.Cut(rest, ": ")
		if !ok {
			break
		}
		// Each pointer is absolute (from the schema's root): the last one
		// names the field.
		msg, field = after, nil
		segs := strings.Split(strings.Trim(ptr, "/"), "/")
		for i := 0; i < len(segs); i++ {
			switch {
			case segs[i] == "properties" && i+1 < len(segs):
				i++
				field = append(field, segs[i])
			case segs[i] == "items" && len(field) > 0:
				field[len(field)-1] += "[]"
			}
		}
	}
	subject := "the arguments"
	if len(field) > 0 {
		subject = fmt.Sprintf("field %q", strings.Join(field, "."))
	}
	if m := typeMismatch().FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s must be %s, got %s", subject, article(m[2]), article(m[1]))
	}
	for prefix, what := range map[string]string{
		"required: missing properties: ":    "lack the required field",
		"unexpected additional properties ": "have an unknown field",
	} {
		if names, ok := strings.CutPrefix(msg, prefix); ok {
			if m := nameList().FindStringSubmatch(names); m != nil {
				names = fmt.Sprintf("%q", m[1])
			}
			return fmt.Sprintf("%s %s %s", subject, what, names)
		}
	}
	return subject + ": " + msg
}

// article puts "a" or "an" before a JSON type's name.
func article(typ string) string {
	if strings.IndexByte("aeiou", typ[0]) >= 0 {
		return "an " + typ
	}
	return "a " + typ
}
