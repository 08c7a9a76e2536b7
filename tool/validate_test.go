package tool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness9/harness9/llm"
)

type validateKind string

func (validateKind) JSONSchemaEnum() []string { return []string{"a", "b"} }

type validateIn struct {
	Path  string       `json:"path"`
	N     int          `json:"n,omitempty"`
	Kind  validateKind `json:"kind,omitempty"`
	Items []struct {
		Name string `json:"name"`
	} `json:"items,omitempty"`
}

// The registry refuses arguments that do not match the schema the model was
// given, naming the field, and the tool never runs.
func TestRegistryValidatesInput(t *testing.T) {
	ran := 0
	r := NewRegistry()
	if err := r.Register(New("probe", "d", func(context.Context, validateIn) (Result, error) {
		ran++
		return Result{Output: "ok"}, nil
	})); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in   string
		want []string // "" = accepted
	}{
		{`{"path":"x"}`, nil},
		{`{"path":"x","kind":"b","items":[{"name":"y"}]}`, nil},
		{``, []string{`the arguments lack the required field "path"`}},
		{`{}`, []string{`the arguments lack the required field "path"`}},
		{`{"path":3}`, []string{`field "path" must be a string, got an integer`}},
		{`{"path":"x","n":"y"}`, []string{`field "n" must be an integer, got a string`}},
		{`{"path":"x","kind":"c"}`, []string{`field "kind": enum`, "a b"}},
		{`{"path":"x","extra":1}`, []string{`the arguments have an unknown field "extra"`}},
		{`{"path":"x","items":[{}]}`, []string{`field "items[]" lack the required field "name"`}},
	} {
		before := ran
		res := r.Execute(context.Background(), nil, llm.ToolCall{ID: "1", Name: "probe", Input: json.RawMessage(tc.in)})
		if tc.want == nil {
			if res.IsError || ran != before+1 {
				t.Errorf("%s: refused or not run: %q", tc.in, res.Output)
			}
			continue
		}
		if !res.IsError || ran != before {
			t.Errorf("%s: accepted (ran %v): %q", tc.in, ran != before, res.Output)
		}
		for _, w := range append(tc.want, "probe: arguments do not match the schema") {
			if !strings.Contains(res.Output, w) {
				t.Errorf("%s: %q lacks %q", tc.in, res.Output, w)
			}
		}
	}
}

// rawTool has a hand-written schema, as an MCP tool does.
type rawTool struct{ schema string }

func (rawTool) Name() string              { return "raw" }
func (rawTool) Description() string       { return "d" }
func (t rawTool) Schema() json.RawMessage { return json.RawMessage(t.schema) }
func (rawTool) Execute(context.Context, json.RawMessage) (Result, error) {
	return Result{Output: "ran"}, nil
}

// A schema that cannot be resolved leaves the input to the tool rather than
// making the tool unusable.
func TestRegistryUnresolvableSchemaIsNotValidated(t *testing.T) {
	r := NewRegistry()
	if err := r.Register(rawTool{schema: `{"type":"object","properties":{"a":{"$ref":"https://example.com/remote.json"}}}`}); err != nil {
		t.Fatal(err)
	}
	res := r.Execute(context.Background(), nil, llm.ToolCall{ID: "1", Name: "raw", Input: json.RawMessage(`{"a":1}`)})
	if res.IsError || res.Output != "ran" {
		t.Fatalf("got %+v, want the tool to run", res)
	}
}
