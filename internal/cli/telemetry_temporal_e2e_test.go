package cli_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/internal/lib/pgtest"
	"github.com/harness9/harness9/internal/otelcoltest"
)

// A real OTLP collector receives one trace for a plan → approve → execute
// session run through `serve --engine temporal` and a worker in another
// process: the caller's traceparent is honoured by serve, the Temporal
// interceptor carries the trace into the workflow and its activities on
// the worker, whose agent runs, model calls and tool calls are its
// descendants, with their gen_ai attributes; no prompt and no model text is
// in it.
func TestServeTemporalOneTrace(t *testing.T) {
	col := otelcoltest.Start(t)
	h := newDurableHarness(t)
	h.env = append(h.env, "HARNESS9_STORE="+pgtest.NewDatabase(t))
	telemetryEnv(h.harness, col)
	cfgPath := filepath.Join(h.home, "config.toml")
	cfg, _ := os.ReadFile(cfgPath)
	cfg = append(cfg, []byte("\n[serve]\nroots = [\""+h.workdir+"\"]\n")...)
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(h.run("", "serve", "token", "add", "a", "--root", h.workdir).stdout)
	model := h.script(servePlanScript)
	h.worker()
	s := h.serve(model, "--engine", "temporal")

	const secret = "SECRET-PROMPT-c3d2"
	const trace, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	tp := "00-" + trace + "-" + parent + "-01"
	s.header = http.Header{"Traceparent": {tp}}
	s.planApproveExecute(token, h.workdir, secret+" write done.txt")

	byID := map[string]otelcoltest.Span{}
	// ancestry is the names and commands of a span and its ancestors.
	ancestry := func(sp otelcoltest.Span) []string {
		var out []string
		for {
			out = append(out, sp.Name+" @"+sp.Resource["harness9.command"].(string))
			next, ok := byID[sp.ParentSpanID]
			if !ok {
				out = append(out, "parent "+sp.ParentSpanID)
				return out
			}
			sp = next
		}
	}
	tools := []string{"execute_tool submit_plan", "execute_tool write_file", "execute_tool todo_write"}
	// A workflow task's span is exported when that task ends, which may be
	// after the activity it started has run: wait until each tool call's
	// ancestry reaches the caller's span (or time runs out, and the checks
	// below say what is missing).
	complete := func(sp []otelcoltest.Span) bool {
		clear(byID)
		for _, s := range sp {
			byID[s.SpanID] = s
		}
		for _, name := range tools {
			if len(spansNamed(sp, name)) != 1 {
				return false
			}
			chain := ancestry(spansNamed(sp, name)[0])
			if chain[len(chain)-1] != "parent "+parent {
				return false
			}
		}
		return true
	}
	spans := waitSpansOrLast(t, col, 60*time.Second, func(sp []otelcoltest.Span) bool {
		return len(spansNamed(sp, "execute_tool write_file")) == 1 && len(spansNamed(sp, "execute_tool submit_plan")) == 1 &&
			len(spansNamed(sp, "execute_tool todo_write")) == 1
	}, complete)
	clear(byID)
	for _, sp := range spans {
		byID[sp.SpanID] = sp
	}
	for _, name := range tools {
		sp := spansNamed(spans, name)[0]
		chain := strings.Join(ancestry(sp), " <- ")
		if sp.TraceID != trace {
			t.Errorf("%s is in trace %s, not the caller's %s: %s", name, sp.TraceID, trace, chain)
		}
		for _, want := range []string{"invoke_agent harness9 @harness9 worker", "RunActivity:", "@harness9 worker",
			"StartWorkflow:", "@harness9 serve", "POST /api/sessions @harness9 serve", "parent " + parent} {
			if !strings.Contains(chain, want) {
				t.Errorf("%s's ancestry lacks %q:\n%s", name, want, chain)
			}
		}
	}
	submit := spansNamed(spans, "execute_tool submit_plan")[0]
	if submit.Attributes["gen_ai.operation.name"] != "execute_tool" || submit.Attributes["harness9.sandbox.policy"] != "read-only" {
		t.Errorf("submit_plan span: %v", submit.Attributes)
	}
	write := spansNamed(spans, "execute_tool write_file")[0]
	if write.Attributes["harness9.sandbox.policy"] != "workspace-write" || write.Attributes["harness9.tool.decision"] != "allowed" {
		t.Errorf("write_file span: %v", write.Attributes)
	}
	chats := 0
	for _, sp := range spans {
		if strings.HasPrefix(sp.Name, "chat ") && sp.TraceID == trace {
			chats++
			if sp.Attributes["gen_ai.operation.name"] != "chat" || sp.Attributes["gen_ai.provider.name"] != "scripted" {
				t.Errorf("chat span: %v", sp.Attributes)
			}
		}
	}
	if chats != 4 {
		t.Errorf("%d chat spans in the trace, want the script's 4", chats)
	}
	var planEvents []string
	for _, sp := range spans {
		for _, ev := range sp.Events {
			if strings.HasPrefix(ev.Name, "plan_") {
				planEvents = append(planEvents, ev.Name)
			}
		}
	}
	for _, want := range []string{"plan_submitted", "plan_approved"} {
		if !strings.Contains(strings.Join(planEvents, " "), want) {
			t.Errorf("no %s event (have %v)", want, planEvents)
		}
	}
	for _, secret := range []string{secret, "Plan ready.", "Finished."} {
		if s := secretIn(spans, secret); s != "" {
			t.Errorf("a span holds %q:\n%s", secret, s)
		}
	}
}
