package service

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/lib/eventjson"
	"github.com/harness9/harness9/llm"
)

// The OpenAPI document describes the permission events exactly as the
// server writes them: every key of permission_ask and permission_answered
// is a property of its schema, and every property is a key.
func TestOpenAPIDescribesPermissionEvents(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	req := &agent.ApprovalRequest{Call: llm.ToolCall{ID: "c1", Name: "write_file", Input: json.RawMessage(`{}`)}, Preview: "p", Why: "w"}
	for schema, obj := range map[string]eventjson.Object{
		"PermissionAsk":      askObject(req),
		"PermissionAnswered": answeredObject(AskAnswered{ID: "c1", Answer: "deny", Unanswered: true}),
	} {
		var keys, props []string
		for _, f := range obj {
			keys = append(keys, f.Key)
		}
		for p := range doc.Components.Schemas[schema].Properties {
			props = append(props, p)
		}
		slices.Sort(keys)
		slices.Sort(props)
		if !slices.Equal(keys, props) {
			t.Errorf("%s: the server writes %v, the document describes %v", schema, keys, props)
		}
	}
}
