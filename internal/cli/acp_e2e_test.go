package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/harness9/harness9/llm"
)

// A session in Plan mode: the model's write is refused while planning, its
// plan reaches the client as a permission request with the review's four
// choices; "keep planning" keeps it and the next prompt revises it;
// dismissing the request keeps the revised plan for /review, where
// "approve and auto-execute" runs it: the todo list reaches the client as
// plan updates ending completed, and the file is on disk.
func TestACPPlanReviewedAndAutoExecuted(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	model := h.script(`{"turns": [
	  {"calls": [{"name": "write_file", "input": {"path": "sneaky.txt", "content": "x"}}]},
	  {"text": "Here is the plan.", "calls": [{"name": "submit_plan", "input": {"title": "Greeting", "content": "Write hello.txt.", "steps": ["write hello.txt"]}}]},
	  {"calls": [{"name": "submit_plan", "input": {"title": "Greeting", "content": "Write hello.txt with a friendly greeting.", "steps": ["write hello.txt"]}}], "match": {"last_user_contains": "friendly"}},
	  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write hello.txt", "status": "in_progress"}]}}]},
	  {"calls": [{"name": "write_file", "input": {"path": "hello.txt", "content": "hello\n"}}]},
	  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write hello.txt", "status": "completed"}]}}]},
	  {"text": "Done."}
	]}`)
	log := h.acp(acpRun{
		args: []string{"-m", model},
		steps: opening(h.workdir, []map[string]any{
			{"op": "mode", "session": "s", "modeId": "plan"},
			{"op": "prompt", "session": "s", "text": "greet the world"},
			{"op": "prompt", "session": "s", "text": "make it friendly"},
			{"op": "prompt", "session": "s", "text": "/review"},
		}),
		answers: []string{"refine", "dismiss", "approve"},
	})
	if got := stopReason(t, log, 3); got != "end_turn" {
		t.Fatalf("stop reason after keeping the plan %q", got)
	}
	if _, ups := log.toolCall(t, 3, "write_file: sneaky.txt"); lastStatus(ups) != "failed" {
		t.Fatalf("the write in Plan mode ended %q", lastStatus(ups))
	}
	if got := stopReason(t, log, 4); got != "end_turn" || !strings.Contains(log.text(4, "agent_message_chunk"), "/review") {
		t.Fatalf("a dismissed review stopped %q saying %q", got, log.text(4, "agent_message_chunk"))
	}
	for _, c := range log.updatesOf(4, "tool_call") {
		if !strings.HasPrefix(c["title"].(string), "submit_plan") {
			t.Fatalf("the turn whose review was dismissed ran %v", c["title"])
		}
	}
	if got := stopReason(t, log, 5); got != "end_turn" {
		t.Fatalf("stop reason after approving %q", got)
	}
	if b, err := os.ReadFile(filepath.Join(h.workdir, "hello.txt")); err != nil || string(b) != "hello\n" {
		t.Fatalf("hello.txt = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(h.workdir, "sneaky.txt")); err == nil {
		t.Fatal("a write in Plan mode reached the disk")
	}

	if len(log.Permissions) != 3 {
		t.Fatalf("permission requests: %+v", log.Permissions)
	}
	first, _ := json.Marshal(log.Permissions[0].ToolCall.Content)
	if strings.Contains(string(first), "friendly") {
		t.Fatalf("the first review showed the revised plan: %s", first)
	}
	review := log.Permissions[2]
	var ids []string
	for _, o := range review.Options {
		ids = append(ids, o.OptionID+"/"+o.Kind)
	}
	if strings.Join(ids, " ") != "approve/allow_always approve_confirm/allow_once refine/reject_once cancel/reject_always" {
		t.Fatalf("review options %v", ids)
	}
	if review.ToolCall.ToolCallID != log.Permissions[1].ToolCall.ToolCallID || review.ToolCall.ToolCallID == log.Permissions[0].ToolCall.ToolCallID {
		t.Fatalf("the reviews name calls %s, %s, %s: want the two submit_plan calls, the second twice", log.Permissions[0].ToolCall.ToolCallID,
			log.Permissions[1].ToolCall.ToolCallID, review.ToolCall.ToolCallID)
	}
	shown, _ := json.Marshal(review.ToolCall.Content)
	if review.ToolCall.Kind != "switch_mode" || !strings.Contains(string(shown), "Write hello.txt with a friendly greeting.") ||
		!strings.Contains(string(shown), "1. write hello.txt") {
		t.Fatalf("the review shows %s (%s)", shown, review.ToolCall.Kind)
	}

	plans := append(log.updatesOf(4, "plan"), log.updatesOf(5, "plan")...)
	if len(plans) < 3 {
		t.Fatalf("plan updates: %v", plans)
	}
	status := func(p map[string]any) string {
		e := p["entries"].([]any)
		if len(e) != 1 {
			t.Fatalf("plan entries %v", e)
		}
		return e[0].(map[string]any)["content"].(string) + ":" + e[0].(map[string]any)["status"].(string)
	}
	if status(plans[0]) != "write hello.txt:pending" || status(plans[len(plans)-1]) != "write hello.txt:completed" {
		t.Fatalf("plan went from %s to %s", status(plans[0]), status(plans[len(plans)-1]))
	}
	var modes []string
	for _, u := range log.updatesOf(5, "current_mode_update") {
		modes = append(modes, u["currentModeId"].(string))
	}
	if strings.Join(modes, ",") != "default" {
		t.Fatalf("mode updates %v, want the switch to default when the plan was approved", modes)
	}

	call, ups := log.toolCall(t, 5, "write_file: hello.txt")
	d := diffOf(call["content"])
	if call["kind"] != "edit" || d == nil || d["newText"] != "hello\n" || d["path"] != filepath.Join(h.workdir, "hello.txt") || d["oldText"] != nil {
		t.Fatalf("the write's tool call %v", call)
	}
	if locs, _ := call["locations"].([]any); len(locs) != 1 || locs[0].(map[string]any)["path"] != filepath.Join(h.workdir, "hello.txt") {
		t.Fatalf("locations %v", call["locations"])
	}
	if lastStatus(ups) != "completed" {
		t.Fatalf("the write ended %q", lastStatus(ups))
	}
}

// A Default-mode session: an edit shows its diff; a command the sandbox
// does not contain (here it is off) is asked about, answered "always",
// and not asked about again — by this agent or, since the rule is the
// one the TUI stores, by a later headless run in the project.
func TestACPAllowAlwaysIsNotAskedAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	writeFile(t, filepath.Join(h.workdir, "a.txt"), "one\n")
	model := h.script(`{"turns": [
	  {"calls": [{"name": "edit_file", "input": {"path": "a.txt", "old_string": "one", "new_string": "two"}}]},
	  {"calls": [{"name": "bash", "input": {"command": "touch made.txt"}}]},
	  {"text": "first done"},
	  {"calls": [{"name": "bash", "input": {"command": "touch made2.txt"}}]},
	  {"text": "second done"}
	]}`)
	log := h.acp(acpRun{
		args: []string{"--sandbox", "off", "-m", model},
		steps: opening(h.workdir, []map[string]any{
			{"op": "prompt", "session": "s", "text": "edit and make a file"},
			{"op": "prompt", "session": "s", "text": "make another"},
		}),
		answers: []string{"allow_always"},
	})
	for _, n := range []int{2, 3} {
		if got := stopReason(t, log, n); got != "end_turn" {
			t.Fatalf("prompt %d stopped %q", n, got)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(h.workdir, "a.txt")); string(b) != "two\n" {
		t.Fatalf("a.txt = %q", b)
	}
	edit, ups := log.toolCall(t, 2, "edit_file: a.txt")
	d := diffOf(edit["content"])
	if edit["kind"] != "edit" || d == nil || d["oldText"] != "one\n" || d["newText"] != "two\n" {
		t.Fatalf("the edit's tool call %v", edit)
	}
	if d := diffOf(ups[len(ups)-1]["content"]); lastStatus(ups) != "completed" || d == nil || d["newText"] != "two\n" {
		t.Fatalf("the edit's last update %v", ups[len(ups)-1])
	}
	if len(log.Permissions) != 1 {
		t.Fatalf("%d permission requests, want 1 (the second command is covered by the answer to the first)", len(log.Permissions))
	}
	p := log.Permissions[0]
	if p.ToolCall.Kind != "execute" || len(p.Options) != 3 || p.Options[1].OptionID != "allow_always" ||
		p.Options[1].Name != "Always allow in this project: bash(touch:*)" {
		t.Fatalf("permission request %+v", p)
	}
	for _, f := range []string{"made.txt", "made2.txt"} {
		if _, err := os.Stat(filepath.Join(h.workdir, f)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	later := h.script(`{"turns": [{"calls": [{"name": "bash", "input": {"command": "touch made3.txt"}}]}, {"text": "ok"}]}`)
	if r := h.run("", "run", "--sandbox", "off", "-C", h.workdir, "-m", later, "one more"); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(h.workdir, "made3.txt")); err != nil {
		t.Fatal("a headless run in the project was refused the command the editor allowed always")
	}
}

// Auto-edit asks before an edit, showing the diff; "reject" leaves the
// file as it was and the model is told.
func TestACPRejectLeavesFileUntouched(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	writeFile(t, filepath.Join(h.workdir, "a.txt"), "keep\n")
	model := h.script(`{"turns": [
	  {"calls": [{"name": "edit_file", "input": {"path": "a.txt", "old_string": "keep", "new_string": "changed"}}]},
	  {"text": "understood", "match": {"last_tool_result_contains": "the user denied this call"}}
	]}`)
	log := h.acp(acpRun{
		args: []string{"-m", model},
		steps: opening(h.workdir, []map[string]any{
			{"op": "mode", "session": "s", "modeId": "auto-edit"},
			{"op": "prompt", "session": "s", "text": "change it"},
		}),
		answers: []string{"reject"},
	})
	if got := stopReason(t, log, 3); got != "end_turn" {
		t.Fatalf("stop reason %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(h.workdir, "a.txt")); string(b) != "keep\n" {
		t.Fatalf("a.txt = %q after a rejected edit", b)
	}
	if len(log.Permissions) != 1 {
		t.Fatalf("permission requests %+v", log.Permissions)
	}
	var d map[string]any
	for _, c := range log.Permissions[0].ToolCall.Content {
		if c["type"] == "diff" {
			d = c
		}
	}
	if d == nil || d["oldText"] != "keep\n" || d["newText"] != "changed\n" {
		t.Fatalf("the request shows %v", log.Permissions[0].ToolCall.Content)
	}
	if _, ups := log.toolCall(t, 3, "edit_file"); lastStatus(ups) != "failed" {
		t.Fatalf("the rejected edit ended %q", lastStatus(ups))
	}
}

// session/cancel stops a running command (whose output was streamed into
// its call) and ends the turn with "cancelled"; the session then takes a
// new prompt.
func TestACPCancelThenNewPrompt(t *testing.T) {
	t.Parallel()
	needSandbox(t) // Default mode asks before every command without it
	h := newHarness(t)
	model := h.script(`{"turns": [
	  {"calls": [{"name": "bash", "input": {"command": "echo started-$((40+2)); sleep 60; touch late.txt"}}]},
	  {"text": "second answer", "match": {"last_user_contains": "again"}}
	]}`)
	log := h.acp(acpRun{
		args: []string{"-m", model},
		fs:   map[string]bool{"readTextFile": true, "writeTextFile": true},
		steps: opening(h.workdir, []map[string]any{
			{"op": "prompt", "session": "s", "text": "run it", "cancelOn": "started-42"},
			{"op": "prompt", "session": "s", "text": "again"},
		}),
	})
	if got := stopReason(t, log, 2); got != "cancelled" {
		t.Fatalf("the cancelled turn stopped %q", got)
	}
	call, ups := log.toolCall(t, 2, "bash: echo started-")
	if call["kind"] != "execute" {
		t.Fatalf("bash's kind %v", call["kind"])
	}
	streamed := false
	for _, u := range ups {
		b, _ := json.Marshal(u["content"])
		if u["status"] == "in_progress" && strings.Contains(string(b), "started-42") {
			streamed = true
		}
		if strings.Contains(string(b), `"terminal"`) {
			t.Fatalf("bash ran in a client terminal: %v", u)
		}
	}
	if !streamed {
		t.Fatalf("the command's output was not streamed into its call: %v", ups)
	}
	if got := stopReason(t, log, 3); got != "end_turn" || log.text(3, "agent_message_chunk") != "second answer" {
		t.Fatalf("the next prompt stopped %q saying %q", got, log.text(3, "agent_message_chunk"))
	}
	if _, err := os.Stat(filepath.Join(h.workdir, "late.txt")); err == nil {
		t.Fatal("the cancelled command went on running")
	}
}

// A session created in ACP is listed by `sessions list` (one nobody wrote
// in is not kept), and a new agent
// process loads it with its history replayed; a session `run` created is
// loaded the same way and continued.
func TestACPSessionsListedAndLoaded(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	model := h.script(`{"turns": [
	  {"text": "Writing.", "calls": [{"name": "write_file", "input": {"path": "a.txt", "content": "A\n"}}]},
	  {"text": "Wrote a.txt."},
	  {"text": "Continued."},
	  {"text": "Resumed headless."}
	]}`)
	first := h.acp(acpRun{
		args: []string{"-m", model},
		steps: opening(h.workdir, []map[string]any{
			{"op": "new", "cwd": h.workdir, "as": "empty"},
			{"op": "prompt", "session": "s", "text": "write a.txt please"},
		}),
	})
	id := first.Sessions["s"]
	r := h.run("", "sessions", "list", "--json", "-C", h.workdir)
	var listed []struct {
		ID      string `json:"id"`
		Workdir string `json:"workdir"`
		Title   string `json:"title"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &listed); err != nil {
		t.Fatalf("sessions list: %v\n%s", err, r.stdout)
	}
	if len(listed) != 1 || listed[0].ID != id || listed[0].Workdir != h.workdir || listed[0].Title != "write a.txt please" {
		t.Fatalf("sessions list = %+v, want the ACP session %s (and not the empty one %s)", listed, id, first.Sessions["empty"])
	}

	second := h.acp(acpRun{
		args: []string{"-m", model},
		steps: []map[string]any{
			{"op": "initialize"},
			{"op": "load", "sessionId": id, "cwd": h.workdir},
			{"op": "prompt", "session": id, "text": "carry on"},
		},
	})
	second.step(t, 1)
	if got := second.text(1, "user_message_chunk"); got != "write a.txt please" {
		t.Fatalf("replayed user text %q", got)
	}
	if got := second.text(1, "agent_message_chunk"); !strings.HasPrefix(got, "Writing.Wrote a.txt.") {
		t.Fatalf("replayed agent text %q", got)
	}
	if _, ups := second.toolCall(t, 1, "write_file: a.txt"); lastStatus(ups) != "completed" {
		t.Fatalf("the replayed call ended %q", lastStatus(ups))
	}
	if got := stopReason(t, second, 2); got != "end_turn" || second.text(2, "agent_message_chunk") != "Continued." {
		t.Fatalf("the loaded session's prompt stopped %q saying %q", got, second.text(2, "agent_message_chunk"))
	}

	// The other front ends resume it (the TUI's --resume opens it the
	// same way).
	resumed := h.run("", "run", "--json", "--resume", id, "-C", h.workdir, "-m", model, "and now headless")
	if texts := resumed.find("text"); resumed.code != 0 || len(texts) != 1 || texts[0]["text"] != "Resumed headless." {
		t.Fatalf("run --resume of the ACP session: exit %d, %v\n%s", resumed.code, texts, resumed.stderr)
	}

	// And back: a session of `harness9 run` is loaded in the editor.
	run := h.run("", "run", "--json", "-C", h.workdir, "-m", h.script(`{"turns": [{"text": "from run"}, {"text": "from the editor"}]}`), "started headless")
	if run.code != 0 {
		t.Fatalf("run: exit %d\n%s", run.code, run.stderr)
	}
	runID := run.find("session")[0]["session_id"].(string)
	third := h.acp(acpRun{
		args: []string{"-m", h.script(`{"turns": [{"text": "from run"}, {"text": "from the editor"}]}`)},
		steps: []map[string]any{
			{"op": "initialize"},
			{"op": "load", "sessionId": runID, "cwd": h.workdir},
			{"op": "prompt", "session": runID, "text": "hello"},
		},
	})
	if third.text(1, "agent_message_chunk") != "from run" || third.text(2, "agent_message_chunk") != "from the editor" {
		t.Fatalf("run's session in the editor: replayed %q, then %q", third.text(1, "agent_message_chunk"), third.text(2, "agent_message_chunk"))
	}
}

// The turn limit ends a turn with max_turn_requests; a prompt a
// user_prompt_submit hook refuses ends with refusal, nothing sent, and the
// user is told why.
func TestACPStopReasons(t *testing.T) {
	t.Parallel()
	needSandbox(t)
	h := newHarness(t)
	writeFile(t, filepath.Join(h.home, "config.toml"), `max_turns = 1

[[hooks.user_prompt_submit]]
command = "if grep -q forbidden; then echo 'prompts may not say forbidden' >&2; exit 2; fi"
`)
	model := h.script(`{"turns": [
	  {"calls": [{"name": "list_files", "input": {}}]},
	  {"text": "never reached"}
	]}`)
	log := h.acp(acpRun{
		args: []string{"-m", model},
		steps: opening(h.workdir, []map[string]any{
			{"op": "prompt", "session": "s", "text": "look around"},
			{"op": "prompt", "session": "s", "text": "do the forbidden thing"},
		}),
	})
	if got := stopReason(t, log, 2); got != "max_turn_requests" {
		t.Fatalf("a turn over the limit stopped %q", got)
	}
	if got := stopReason(t, log, 3); got != "refusal" || !strings.Contains(log.text(3, "agent_message_chunk"), "prompts may not say forbidden") {
		t.Fatalf("a refused prompt stopped %q saying %q", got, log.text(3, "agent_message_chunk"))
	}
}

// A stream cut mid-answer is asked again; the editor cannot take back the
// partial text it was sent, so before the new answer it is told that text
// is void, and the session keeps only the new answer. A stream cut before
// any text (while the model reasoned) leaves the message alone: the cut is
// a thought. (A stream cut before any chunk reached the engine is retried
// by the provider, unseen.)
func TestACPCutStreamMarksThePartialAnswerVoid(t *testing.T) {
	t.Parallel()
	t.Run("text", func(t *testing.T) {
		t.Parallel()
		text, thought := acpCutStream(t, partialText)
		partial, void, whole := strings.Index(text, "PARTIAL-WORDS"), strings.Index(text, "The text above is void"), strings.Index(text, "The COMPLETE answer.")
		if partial < 0 || void < partial || whole < void || strings.Count(text, "The COMPLETE answer.") != 1 || strings.Contains(thought, "cut off") {
			t.Errorf("the editor was sent %q (thought %q); want the partial answer, then that it is void, then the answer once", text, thought)
		}
	})
	t.Run("reasoning", func(t *testing.T) {
		t.Parallel()
		text, thought := acpCutStream(t, `{"role":"assistant","reasoning_content":"Let me think"}`)
		if text != "The COMPLETE answer." || !strings.Contains(thought, "answer was cut off") {
			t.Errorf("the editor was sent %q and the thought %q; want the answer alone, the cut as a thought", text, thought)
		}
	})
}

// acpCutStream runs one ACP prompt against a model whose first stream
// sends partial and breaks off, checks that it was asked again and that
// the session keeps only the whole answer, and returns the message and
// thought text the editor was sent.
func acpCutStream(t *testing.T, partial string) (text, thought string) {
	t.Helper()
	var calls atomic.Int32
	srv := cutStreamServer(t, &calls, partial)
	h := newHarness(t)
	h.env = append(h.env, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.URL+"/v1")
	log := h.acp(acpRun{
		args:  []string{"-m", "openai/gpt-test"},
		steps: opening(h.workdir, []map[string]any{{"op": "prompt", "session": "s", "text": "hi"}}),
	})
	if got := stopReason(t, log, 2); got != "end_turn" {
		t.Fatalf("the turn stopped %q", got)
	}
	if calls.Load() != 2 {
		t.Errorf("%d model calls, want 2", calls.Load())
	}
	var stored []string
	for _, m := range h.storedMessages(t) {
		if m.Role == llm.RoleAssistant {
			stored = append(stored, m.Content)
		}
	}
	if len(stored) != 1 || stored[0] != "The COMPLETE answer." {
		t.Errorf("the session keeps the answers %q", stored)
	}
	return log.text(2, "agent_message_chunk"), log.text(2, "agent_thought_chunk")
}
