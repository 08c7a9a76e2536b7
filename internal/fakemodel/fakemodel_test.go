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

// TestPlanApproveExecute drives a planning engine through both real providers
// against the stand-in: the plan is submitted, and once approved the step's
// file is written and the todo list completed.
func TestPlanApproveExecute(t *testing.T) {
	fake := fakemodel.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	providers := map[string]llm.Provider{
		"openai":    openai.New(openai.WithAPIKey("k"), openai.WithBaseURL(srv.URL+"/v1")),
		"anthropic": anthropic.New(anthropic.WithAPIKey("k"), anthropic.WithBaseURL(srv.URL)),
	}
	for name, p := range providers {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			ws, err := tool.NewWorkspace(dir)
			if err != nil {
				t.Fatal(err)
			}
			eng, err := agent.New(p, agent.WithModel("m"), agent.WithWorkspace(ws),
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
		})
	}
	if fake.Requests() < 8 {
		t.Fatalf("the stand-in answered %d requests", fake.Requests())
	}
}
