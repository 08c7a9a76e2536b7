package fakemodel_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/fakemodel"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/anthropic"
	"github.com/harness9/harness9/llm/openai"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// TestPlanApproveExecute drives a planning engine through the real
// providers, on each wire, with and without reasoning, against the
// stand-in: the plan is submitted, and once approved the step's file is
// written and the todo list completed. With reasoning on, every call is
// answered with reasoning, which the stand-in refuses to see dropped
// across the tool calls.
func TestPlanApproveExecute(t *testing.T) {
	fake := fakemodel.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	wires := []struct {
		name   string
		p      llm.Provider
		effort llm.Effort
	}{
		{"chat", openai.New(openai.WithAPIKey("k"), openai.WithBaseURL(srv.URL+"/v1")), ""},
		{"responses", openai.New(openai.WithAPIKey("k"), openai.WithBaseURL(srv.URL+"/v1"), openai.WithAPI(openai.APIResponses)), ""},
		{"responses reasoning", openai.New(openai.WithAPIKey("k"), openai.WithBaseURL(srv.URL+"/v1"), openai.WithAPI(openai.APIResponses)),
			llm.EffortHigh},
		{"anthropic", anthropic.New(anthropic.WithAPIKey("k"), anthropic.WithBaseURL(srv.URL)), ""},
		{"anthropic thinking", anthropic.New(anthropic.WithAPIKey("k"), anthropic.WithBaseURL(srv.URL)), llm.EffortMedium},
	}
	for _, wire := range wires {
		t.Run(wire.name, func(t *testing.T) {
			before, reasonedBefore := fake.Requests(), fake.Reasoned()
			dir := t.TempDir()
			ws, err := tool.NewWorkspace(dir)
			if err != nil {
				t.Fatal(err)
			}
			eng, err := agent.New(wire.p, agent.WithModel("m"), agent.WithWorkspace(ws), agent.WithEffort(wire.effort),
				agent.WithTools(builtin.All(ws)...), agent.WithMode(planning.ModePlan))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			var plan planning.Plan
			for ev := range eng.Run(ctx, "add a /health endpoint") {
				if s, ok := ev.(agent.PlanSubmitted); ok {
					plan = s.Plan
				}
			}
			if plan.Title != "add a /health endpoint" || len(plan.Steps) != 1 {
				t.Fatalf("plan = %+v", plan)
			}
			var status agent.RunStatus
			for ev := range eng.Approve(ctx, planning.ModeDefault) {
				if d, ok := ev.(agent.Done); ok {
					status = d.Status
				}
			}
			if status != agent.RunCompleted {
				t.Fatalf("execution ended %v", status)
			}
			if _, err := os.Stat(filepath.Join(dir, fakemodel.StepFile(1))); err != nil {
				t.Fatalf("the step's file is missing: %v", err)
			}
			for _, td := range eng.Todos() {
				if td.Status != planning.TodoCompleted {
					t.Fatalf("todo %+v not completed", td)
				}
			}
			calls, reasoned := fake.Requests()-before, fake.Reasoned()-reasonedBefore
			if calls < 4 {
				t.Fatalf("the stand-in answered %d requests", calls)
			}
			if wire.effort == "" && reasoned != 0 || wire.effort != "" && reasoned != calls {
				t.Fatalf("%d of %d calls asked for reasoning with effort %q", reasoned, calls, wire.effort)
			}
		})
	}
}
