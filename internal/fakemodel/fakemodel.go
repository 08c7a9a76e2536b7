// Package fakemodel is a stand-in for a model provider on the real wire: an
// HTTP server that speaks OpenAI's Chat Completions and Anthropic's Messages
// APIs (streamed as Server-Sent Events, as the SDKs ask for them) and answers
// like a small, well-behaved planning model. Tests that drive the built
// binary through the documented commands point OPENAI_BASE_URL (at URL+"/v1")
// and ANTHROPIC_BASE_URL (at URL) at it.
//
// The model's rules, decided from the request alone so that a session resumed
// by another process stays in step:
//   - offered submit_plan (Plan Mode) after a prompt: it submits a one-step plan;
//   - told to execute a plan: it marks the first open step in progress and
//     writes a file for it, then marks it completed, then says it is done;
//   - anything else: it answers in one line of text, quoting the prompt.
//
// Asked to reason (Anthropic's thinking, OpenAI's reasoning effort on the
// Responses wire), it reasons before answering — a signed thinking block, an
// encrypted reasoning item — and refuses a request that calls tools without
// the reasoning that led to the calls, as the real APIs do.
package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/harness9/harness9/planning"
)

// StepFile is the file the model writes for step n (1-based) of a plan.
func StepFile(n int) string { return fmt.Sprintf("harness9-step-%d.txt", n) }

// Server is the HTTP handler; Requests counts the model calls it answered.
type Server struct {
	requests atomic.Int64
	reasoned atomic.Int64
}

// New returns a Server.
func New() *Server { return &Server{} }

// Requests is the number of model calls answered so far.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Reasoned is the number of model calls answered with reasoning (the
// request asked for it: a reasoning effort, or Anthropic's thinking).
func (s *Server) Reasoned() int64 { return s.reasoned.Load() }

// ServeHTTP answers POST /v1/chat/completions and POST /v1/responses
// (OpenAI's two wires) and POST /v1/messages (Anthropic); anything else is
// 404. A request that does not send back the reasoning the model gave
// before a tool call, as the APIs require, is refused with 400.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, write, ok := decode(w, r)
	if !ok {
		return
	}
	s.requests.Add(1)
	a := c.next()
	if c.reasoning {
		s.reasoned.Add(1)
		a.thought = "The user asked: " + firstLine(c.lastPrompt(), 60)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	write(w, c, a)
}

// writer writes an answer on one wire.
type writer func(http.ResponseWriter, conversation, answer)

// decode reads a model call on whichever wire its path names. When the
// request is not one, it answers it (404, 400) and returns false.
func decode(w http.ResponseWriter, r *http.Request) (conversation, writer, bool) {
	if r.Method != http.MethodPost {
		http.Error(w, `{"error":{"message":"method not allowed"}}`, http.StatusMethodNotAllowed)
		return conversation{}, nil, false
	}
	var c conversation
	var err error
	var write writer
	switch {
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		c, err = decodeOpenAI(r)
		write = writeOpenAI
	case strings.HasSuffix(r.URL.Path, "/responses"):
		c, err = decodeResponses(r)
		write = writeResponses
	case strings.HasSuffix(r.URL.Path, "/messages"):
		c, err = decodeAnthropic(r)
		write = writeAnthropic
	default:
		http.NotFound(w, r)
		return conversation{}, nil, false
	}
	if err == nil {
		err = c.checkReasoning()
	}
	if err != nil {
		http.Error(w, fmt.Sprintf(`{"error":{"type":"invalid_request_error","message":%q}}`, err.Error()), http.StatusBadRequest)
		return conversation{}, nil, false
	}
	return c, write, true
}

// message is one message of a request, whichever wire it came on.
type message struct {
	role    string // "user", "assistant" or "tool"
	text    string
	calls   []call
	results int // tool results it carries
	// thought: an assistant message carries the reasoning the model gave
	// with it (a signed thinking block, an encrypted reasoning item).
	thought bool
}

type call struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type conversation struct {
	model    string
	messages []message
	tools    map[string]bool
	// reasoning: the request asked for reasoning (an effort, thinking).
	reasoning bool
}

// answer is one assistant message: its reasoning, text and tool calls.
type answer struct {
	thought string
	text    string
	calls   []call
}

type todo struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	Status  string `json:"status"`
}

// next decides the model's answer from the conversation so far.
func (c conversation) next() answer {
	if len(c.messages) == 0 {
		return answer{text: "Hello from the stand-in model."}
	}
	last := c.messages[len(c.messages)-1]
	if last.role == "user" && last.results == 0 {
		switch {
		case c.tools["submit_plan"]:
			return c.submitPlan(last.text)
		case executing(last.text) && c.tools["todo_write"]:
			return c.work()
		}
		return answer{text: "The stand-in model read your request: " + firstLine(last.text, 80)}
	}
	// Tool results: carry on with the plan if one is being executed.
	if c.tools["todo_write"] && c.executingPlan() {
		return c.work()
	}
	return answer{text: "Done."}
}

func executing(text string) bool {
	return strings.HasPrefix(text, planning.ExecPrompt) || strings.HasPrefix(text, planning.ExecContinuePrompt)
}

// executingPlan tells whether the conversation's last prompt asked to execute
// a plan.
func (c conversation) executingPlan() bool {
	for i := len(c.messages) - 1; i >= 0; i-- {
		if m := c.messages[i]; m.role == "user" && m.results == 0 {
			return executing(m.text)
		}
	}
	return false
}

func (c conversation) submitPlan(prompt string) answer {
	title := firstLine(strings.TrimPrefix(prompt, planning.PlanModePrefix), 60)
	input, _ := json.Marshal(map[string]any{
		"title":   title,
		"content": "## Approach\nWrite " + StepFile(1) + " recording the request.\n",
		"steps":   []string{"Write " + StepFile(1)},
	})
	return answer{text: "Here is my plan.", calls: []call{{ID: c.callID(0), Name: "submit_plan", Input: input}}}
}

// work advances the plan by one move: an open item in progress gets its file
// written (then it is completed); a pending item is started; with none left
// the model says it is done.
func (c conversation) work() answer {
	todos, wrote := c.todos()
	for i, t := range todos {
		switch t.Status {
		case "in_progress":
			if !wrote {
				return c.writeStep(i, todos)
			}
			todos[i].Status = "completed"
			return answer{text: "Step " + t.ID + " is done.", calls: []call{c.todoWrite(0, todos)}}
		case "pending":
			todos[i].Status = "in_progress"
			return c.writeStep(i, todos)
		}
	}
	return answer{text: "All steps of the plan are done."}
}

func (c conversation) writeStep(i int, todos []todo) answer {
	input, _ := json.Marshal(map[string]string{"path": StepFile(i + 1), "content": todos[i].Content + "\n"})
	return answer{text: "Working on step " + todos[i].ID + ".", calls: []call{
		c.todoWrite(0, todos), {ID: c.callID(1), Name: "write_file", Input: input}}}
}

func (c conversation) todoWrite(k int, todos []todo) call {
	input, _ := json.Marshal(map[string]any{"todos": todos})
	return call{ID: c.callID(k), Name: "todo_write", Input: input}
}

// todos returns the todo list as the model last wrote it (its last
// todo_write, else the steps of its last submit_plan) and whether a file was
// written since that todo_write.
func (c conversation) todos() ([]todo, bool) {
	wrote := false
	for i := len(c.messages) - 1; i >= 0; i-- {
		for j := len(c.messages[i].calls) - 1; j >= 0; j-- {
			k := c.messages[i].calls[j]
			switch k.Name {
			case "write_file":
				wrote = true
			case "todo_write":
				var in struct {
					Todos []todo `json:"todos"`
				}
				if json.Unmarshal(k.Input, &in) == nil && len(in.Todos) > 0 {
					return in.Todos, wrote
				}
			case "submit_plan":
				var in struct {
					Steps []string `json:"steps"`
				}
				_ = json.Unmarshal(k.Input, &in)
				var todos []todo
				for n, s := range in.Steps {
					todos = append(todos, todo{ID: fmt.Sprint(n + 1), Content: s, Status: "pending"})
				}
				return todos, false
			}
		}
	}
	return nil, false
}

// callID is unique within the conversation: the number of assistant
// messages so far and the call's place in its message.
func (c conversation) callID(k int) string {
	n := 0
	for _, m := range c.messages {
		if m.role == "assistant" {
			n++
		}
	}
	return fmt.Sprintf("call_%d_%d", n, k)
}

func firstLine(s string, max int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return s
}
