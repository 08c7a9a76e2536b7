package agent

import (
	"context"

	"github.com/harness9/harness9/llm"
)

// interruptedResult answers a tool call whose result was never stored: the
// process running it was killed, or (before sessions had one writer) two
// processes interleaved their messages.
const interruptedResult = "interrupted: the previous run ended before this call finished; check its effects before retrying"

// repairHistory stores an answer for every tool call of the history that
// has none, so the transcript shows what happened to it. The answers land
// at the end of the history; requestHistory puts each next to its call.
func (e *Engine) repairHistory(ctx context.Context) error {
	for _, call := range e.unansweredCalls() {
		msg := llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Name: call.Name, IsError: true, Content: interruptedResult}
		if err := e.st.Append(ctx, msg); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) unansweredCalls() []llm.ToolCall {
	var out []llm.ToolCall
	e.st.Read(func(history []llm.Message) {
		if wellFormed(history) {
			return // every call answered: no need to pair them up
		}
		for _, c := range bindResults(history) {
			if c.result < 0 {
				out = append(out, c.call)
			}
		}
	})
	return out
}

// boundCall is a tool call and the index of the message answering it, or
// -1 when nothing answers it.
type boundCall struct {
	call   llm.ToolCall
	at     int // index of the assistant message making the call
	result int
}

// bindResults pairs every tool call in msgs with the first tool message
// after it that carries its id and answers no earlier call. A tool message
// bound to no call (a second answer, an answer before its call, an answer
// whose call a compaction summary replaced) is left unbound.
func bindResults(msgs []llm.Message) []boundCall {
	byID := map[string][]int{} // tool message indices per call id, in order
	for i, m := range msgs {
		if m.Role == llm.RoleTool {
			byID[m.ToolCallID] = append(byID[m.ToolCallID], i)
		}
	}
	var out []boundCall
	for i, m := range msgs {
		if m.Role != llm.RoleAssistant {
			continue
		}
		for _, c := range m.ToolCalls {
			b := boundCall{call: c, at: i, result: -1}
			q := byID[c.ID]
			for len(q) > 0 && q[0] < i {
				q = q[1:] // answers before the call answer nothing
			}
			if len(q) > 0 {
				b.result, q = q[0], q[1:]
			}
			byID[c.ID] = q
			out = append(out, b)
		}
	}
	return out
}

// requestHistory returns msgs in the shape every provider accepts: each
// assistant message's tool calls answered, once each, by the tool messages
// right after it. A stored history normally has that shape already and is
// returned as it is. One that does not (a killed run, a result stored out of
// order, two processes interleaving) is rebuilt: answers move next to their
// call, a call without one gets an "interrupted" error result, and a tool
// message answering no call is left out. Nothing in the store changes.
func requestHistory(msgs []llm.Message) []llm.Message {
	if wellFormed(msgs) {
		return msgs
	}
	calls := bindResults(msgs)
	out := make([]llm.Message, 0, len(msgs)+1)
	next := 0 // first entry of calls not yet emitted
	for i, m := range msgs {
		if m.Role == llm.RoleTool {
			continue // emitted after its call, or dropped
		}
		out = append(out, m)
		for next < len(calls) && calls[next].at == i {
			c := calls[next]
			if c.result >= 0 {
				out = append(out, msgs[c.result])
			} else {
				out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: c.call.ID, Name: c.call.Name, IsError: true, Content: interruptedResult})
			}
			next++
		}
	}
	return out[:len(out):len(out)]
}

// shapeMemo remembers how much of a run loop's history requestHistory has
// found well formed, so that each model call checks only the messages
// added since the previous one: checking a 4,000-message history before
// every call made a turn's cost grow with the session.
//
// A checked prefix ends after a complete turn (wellFormed accepts nothing
// else), so a history is well formed exactly when its checked prefix and
// the rest are. The memo trusts the prefix only for the same backing array
// (base), whose first n messages the session state never changes in
// place: it only appends, and a compaction summary, a reload or the lean
// resume's full read makes a new slice.
type shapeMemo struct {
	base *llm.Message
	n    int
}

// requestHistory is the package's requestHistory, checking only what was
// appended since the last call with the same history.
func (s *shapeMemo) requestHistory(msgs []llm.Message) []llm.Message {
	if len(msgs) == 0 {
		return msgs
	}
	from := 0
	if &msgs[0] == s.base && s.n <= len(msgs) {
		from = s.n
	}
	if !wellFormed(msgs[from:]) {
		return requestHistory(msgs)
	}
	s.base, s.n = &msgs[0], len(msgs)
	return msgs
}

// wellFormed reports whether every tool call in msgs is answered by exactly
// one of the tool messages directly after its assistant message, and every
// tool message is such an answer. It runs before every model call over the
// whole history, so it allocates nothing for the usual few calls per
// message.
func wellFormed(msgs []llm.Message) bool {
	var small [16]bool
	for i := 0; i < len(msgs); {
		m := msgs[i]
		i++
		if m.Role == llm.RoleTool {
			return false
		}
		n := len(m.ToolCalls)
		if m.Role != llm.RoleAssistant || n == 0 {
			continue
		}
		if i+n > len(msgs) {
			return false
		}
		var answered []bool
		if n <= len(small) {
			answered = small[:n]
			clear(answered)
		} else {
			answered = make([]bool, n)
		}
		for _, r := range msgs[i : i+n] {
			if r.Role != llm.RoleTool || !markAnswer(m.ToolCalls, answered, r.ToolCallID) {
				return false
			}
		}
		i += n
	}
	return true
}

// markAnswer marks the first unanswered call with id as answered and
// reports whether there was one.
func markAnswer(calls []llm.ToolCall, answered []bool, id string) bool {
	for k := range calls {
		if !answered[k] && calls[k].ID == id {
			answered[k] = true
			return true
		}
	}
	return false
}
