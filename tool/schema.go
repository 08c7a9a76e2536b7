package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Enum is implemented by string types whose values form a closed set. A
// field of such a type gets an "enum" in its generated JSON Schema, so the
// model is constrained to legal values before a call ever reaches Execute.
type Enum interface {
	JSONSchemaEnum() []string
}

var enumType = reflect.TypeFor[Enum]()

// SchemaFor generates the JSON Schema of T's input object from its Go type:
// `json` tags name the properties (omitempty/omitzero ones are optional),
// `jsonschema:"..."` tags describe them, and Enum types list their values.
// It panics if T cannot be described, which is a programming error caught by
// any test that builds the tool.
func SchemaFor[T any]() json.RawMessage {
	opts := &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{}}
	collectEnums(reflect.TypeFor[T](), opts.TypeSchemas, map[reflect.Type]bool{})
	s, err := jsonschema.For[T](opts)
	if err != nil {
		panic(fmt.Sprintf("tool: cannot build a JSON Schema: %v", err))
	}
	dropNull(s)
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tool: cannot encode a JSON Schema: %v", err))
	}
	return b
}

// dropNull turns the ["null", T] types generated for slices, maps and
// pointers into plain T: a model should send an array or leave the field
// out, and some providers reject a list of types.
func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		dropNull(p)
	}
	dropNull(s.Items)
	dropNull(s.AdditionalProperties)
}

// collectEnums walks t's type graph and records a schema for every Enum type.
func collectEnums(t reflect.Type, out map[reflect.Type]*jsonschema.Schema, seen map[reflect.Type]bool) {
	if seen[t] {
		return
	}
	seen[t] = true
	if t.Kind() == reflect.String && t.Implements(enumType) {
		vals := reflect.Zero(t).Interface().(Enum).JSONSchemaEnum()
		enum := make([]any, len(vals))
		for i, v := range vals {
			enum[i] = v
		}
		out[t] = &jsonschema.Schema{Type: "string", Enum: enum}
		return
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		collectEnums(t.Elem(), out, seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() {
				collectEnums(f.Type, out, seen)
			}
		}
	}
}

// Decode parses a tool's JSON arguments into T. Unknown fields are refused so
// a model's typo in a parameter name is reported instead of silently ignored.
// Empty input decodes as an empty object. The error is worded for the model.
func Decode[T any](input json.RawMessage) (T, error) {
	var v T
	trimmed := bytes.TrimSpace(input)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		trimmed = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return v, fmt.Errorf("arguments are not valid: %s", describeJSONError(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return v, errors.New("arguments are not valid: unexpected data after the JSON object")
	}
	return v, nil
}

func describeJSONError(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("malformed JSON at byte %d (%v); send one JSON object matching the schema", syn.Offset, syn)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return fmt.Sprintf("expected a JSON object, got %s", typ.Value)
		}
		return fmt.Sprintf("field %q must be %s, got %s", field, jsonKind(typ.Type), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON object is cut short"
	}
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return "unknown field " + rest + "; use only the fields in the schema"
	}
	return strings.TrimPrefix(msg, "json: ")
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}

// Spec is the static half of a tool: its name, its description and the
// JSON Schema generated from its typed input. Embed it in a tool struct
// (the built-in tools do) or let New do it for a plain function.
type Spec struct {
	name, description string
	schema            json.RawMessage
}

// NewSpec returns the Spec of a tool whose input decodes into In.
func NewSpec[In any](name, description string) Spec {
	return Spec{name: name, description: description, schema: SchemaFor[In]()}
}

// Name implements Tool.
func (s Spec) Name() string { return s.name }

// Description implements Tool.
func (s Spec) Description() string { return s.description }

// Schema implements Tool.
func (s Spec) Schema() json.RawMessage { return s.schema }

// Run decodes input into In and calls fn; a decoding failure is an error
// result that names the tool and the problem, for the model to correct.
func Run[In any](ctx context.Context, name string, input json.RawMessage, fn func(context.Context, In) (Result, error)) (Result, error) {
	in, err := Decode[In](input)
	if err != nil {
		return Errorf("%s: %v", name, err), nil
	}
	return fn(ctx, in)
}
