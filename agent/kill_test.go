package agent_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session/sqlite"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// TestHelperProcess is the child of TestTodosSurviveAProcessKill: it runs
// one whole run, then a second one that writes todos and starts a long bash
// call, and reports its progress on stdout until it is killed.
func TestHelperProcess(t *testing.T) {
	if os.Getenv("H9_AGENT_HELPER") != "1" {
		t.Skip("helper process for TestTodosSurviveAProcessKill")
	}
	dir, home, db := os.Getenv("H9_DIR"), os.Getenv("H9_HOME"), os.Getenv("H9_DB")
	store, err := sqlite.Open(db)
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	ws, err := tool.NewWorkspace(dir, tool.WithHome(home))
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	p := scripted.New(
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("a", "first", planning.TodoPending), todo("b", "second", planning.TodoPending)))},
		scripted.Turn{Text: "Two things to do."},
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("a", "first", planning.TodoInProgress), todo("b", "second", planning.TodoPending)))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("bash", map[string]any{"command": "sleep 120"}))},
	)
	eng, err := agent.New(p, agent.WithStore(store), agent.WithWorkdir(dir), agent.WithPlanFiles(home), agent.WithTools(builtin.All(ws)...))
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	for ev := range eng.Run(context.Background(), "list the work") {
		if d, ok := ev.(agent.Done); ok {
			fmt.Println("RUN1", d.Status, eng.SessionID())
		}
	}
	for ev := range eng.Run(context.Background(), "start working") {
		if c, ok := ev.(agent.ToolCall); ok && c.Name == "bash" {
			fmt.Println("BASH")
		}
	}
	fmt.Println("ERROR the second run ended before the kill")
	os.Exit(1)
}

func TestTodosSurviveAProcessKill(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	h := newHarness(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.v")
	cmd.Env = append(os.Environ(), "H9_AGENT_HELPER=1", "H9_DIR="+h.dir, "H9_HOME="+h.home, "H9_DB="+h.dbPath)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var id string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "RUN1 "); ok {
			status, sid, _ := strings.Cut(rest, " ")
			if status != string(agent.RunCompleted) {
				t.Errorf("first run ended %s", status)
			}
			id = sid
		}
		if strings.HasPrefix(line, "ERROR") {
			t.Fatal(line)
		}
		if line == "BASH" {
			break
		}
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no defer, no cleanup runs
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if id == "" {
		t.Fatal("the helper never reported its session")
	}

	// A new process resumes: the todos written mid-run are there, and the
	// bash call the kill interrupted gets an answer before the next turn.
	h.p.Add(
		scripted.Turn{Text: "resuming", Match: func(r llm.Request) bool {
			answered := map[string]bool{}
			for _, m := range r.Messages {
				if m.Role == llm.RoleTool {
					answered[m.ToolCallID] = true
				}
			}
			for _, m := range r.Messages {
				for _, c := range m.ToolCalls {
					if !answered[c.ID] {
						return false
					}
				}
			}
			return true
		}},
	)
	eng := h.engine(agent.WithSession(id))
	got := eng.Todos()
	if len(got) != 2 || got[0].Status != planning.TodoInProgress || got[1].Status != planning.TodoPending {
		t.Fatalf("todos after the kill = %+v", got)
	}
	wantDone(t, drain(t, eng.Run(context.Background(), "carry on")), agent.RunCompleted)
	msgs := h.messages(id)
	var interrupted bool
	for _, m := range msgs {
		if m.Role == llm.RoleTool && m.Name == "bash" && m.IsError && strings.Contains(m.Content, "interrupted") {
			interrupted = true
		}
	}
	if !interrupted {
		t.Errorf("the interrupted bash call was not answered: %+v", msgs)
	}
}
