package agent

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/harness9/harness9/llm"
)

func call(id string) llm.ToolCall { return llm.ToolCall{ID: id, Name: "t", Input: []byte(`{}`)} }

func result(id string) llm.Message {
	return llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: "t", Content: "out " + id}
}

// turnOf is one writer's part of a conversation: a prompt, an assistant
// message calling ids, and the results of those calls.
func turnOf(name string, ids ...string) []llm.Message {
	var calls []llm.ToolCall
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "prompt " + name}}
	for _, id := range ids {
		calls = append(calls, call(id))
	}
	msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: "assistant " + name, ToolCalls: calls})
	for _, id := range ids {
		msgs = append(msgs, result(id))
	}
	return msgs
}

// interleave merges a and b keeping each one's own order, choosing the
// source of each message with r.
func interleave(r *rand.Rand, a, b []llm.Message) []llm.Message {
	out := make([]llm.Message, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		if len(b) == 0 || len(a) > 0 && r.IntN(2) == 0 {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return out
}

// checkRepaired asserts the properties requestHistory promises for in.
func checkRepaired(t *testing.T, in, out []llm.Message) {
	t.Helper()
	if !wellFormed(out) {
		t.Fatalf("not well formed:\n%s", dump(out))
	}
	// Every non-tool message is kept, in order.
	var want, got []string
	for _, m := range in {
		if m.Role != llm.RoleTool {
			want = append(want, m.Content)
		}
	}
	for _, m := range out {
		if m.Role != llm.RoleTool {
			got = append(got, m.Content)
		}
	}
	if fmt.Sprint(want) != fmt.Sprint(got) {
		t.Fatalf("non-tool messages changed: %v, want %v", got, want)
	}
	// A call answered after it in the input keeps that answer.
	for _, b := range bindResults(in) {
		if b.result < 0 {
			continue
		}
		found := false
		for _, m := range out {
			if m.Role == llm.RoleTool && m.ToolCallID == b.call.ID && m.Content == in[b.result].Content {
				found = true
			}
		}
		if !found {
			t.Fatalf("the stored answer of %s was lost:\n%s", b.call.ID, dump(out))
		}
	}
}

func dump(msgs []llm.Message) string {
	s := ""
	for _, m := range msgs {
		s += fmt.Sprintf("  %s %q calls=%d id=%s\n", m.Role, m.Content, len(m.ToolCalls), m.ToolCallID)
	}
	return s
}

func TestRequestHistoryKeepsAWellFormedHistory(t *testing.T) {
	in := append(turnOf("a", "a1", "a2"), llm.Message{Role: llm.RoleAssistant, Content: "done"})
	out := requestHistory(in)
	if &out[0] != &in[0] || len(out) != len(in) {
		t.Fatal("a well-formed history was copied or changed")
	}
}

func TestRequestHistoryRepairsKnownShapes(t *testing.T) {
	for name, in := range map[string][]llm.Message{
		// Two processes on one session: user A, user B, call, call, result, result.
		"two writers": {
			{Role: llm.RoleUser, Content: "A"}, {Role: llm.RoleUser, Content: "B"},
			{Role: llm.RoleAssistant, Content: "call a", ToolCalls: []llm.ToolCall{call("a")}},
			{Role: llm.RoleAssistant, Content: "call b", ToolCalls: []llm.ToolCall{call("b")}},
			result("a"), result("b"),
		},
		"killed mid-tool": append(turnOf("x", "x1", "x2")[:3], llm.Message{Role: llm.RoleUser, Content: "again"}),
		"results reversed": {
			{Role: llm.RoleUser, Content: "p"},
			{Role: llm.RoleAssistant, Content: "two", ToolCalls: []llm.ToolCall{call("1"), call("2")}},
			result("2"), result("1"),
		},
		"answer before its call": {result("z"), {Role: llm.RoleAssistant, Content: "z", ToolCalls: []llm.ToolCall{call("z")}}},
		"duplicate answer":       append(turnOf("d", "d1"), result("d1")),
		"orphan answer":          {{Role: llm.RoleUser, Content: "p"}, result("nobody")},
		"id reused by a later call": append(turnOf("r", "same"),
			turnOf("s", "same")...),
	} {
		t.Run(name, func(t *testing.T) {
			out := requestHistory(in)
			checkRepaired(t, in, out)
		})
	}
}

// Every interleaving of two writers' turns (and of a truncated turn, as a
// kill leaves it) is repaired into a history a provider accepts.
func TestRequestHistoryRepairsRandomInterleavings(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		a := turnOf(fmt.Sprintf("a%d", i), "a1", "a2")
		b := turnOf(fmt.Sprintf("b%d", i), "b1", "b2", "b3")
		a = a[:1+r.IntN(len(a))] // a kill may cut a writer short
		in := interleave(r, a, b)
		if r.IntN(3) == 0 {
			in = append(turnOf("before", "p1"), in...)
		}
		out := requestHistory(in)
		checkRepaired(t, in, out)
		// Repairing twice changes nothing more.
		if again := requestHistory(out); len(again) != len(out) {
			t.Fatalf("repair is not idempotent:\n%s", dump(out))
		}
	}
}

// The memo that lets each model call check only the new messages gives,
// call after call, exactly what checking the whole history gives: an
// appended part that breaks the shape (a second writer, a killed run) is
// repaired, and a well-formed history is handed on as it is.
func TestShapeMemoAgreesWithAFullCheck(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 200 {
		var memo shapeMemo
		hist := make([]llm.Message, 0, 4096) // one array, as the engine's history mostly is
		for step := range 12 {
			part := turnOf(fmt.Sprintf("%d-%d", round, step), "c1", "c2")
			switch r.IntN(4) {
			case 0: // a second writer's messages interleaved
				part = interleave(r, part, turnOf(fmt.Sprintf("o%d-%d", round, step), "o1"))
			case 1: // a run killed before its results were stored
				part = part[:1+r.IntN(len(part))]
			}
			hist = append(hist, part...)
			got, want := memo.requestHistory(hist), requestHistory(hist)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d step %d: the memo's history differs from a full check's\n got:\n%s\nwant:\n%s", round, step, dump(got), dump(want))
			}
		}
	}
}

// A memo made for one history is not trusted for another, even one that
// starts with the same message values.
func TestShapeMemoIsPerHistory(t *testing.T) {
	var memo shapeMemo
	good := turnOf("a", "a1")
	memo.requestHistory(good)
	// Its first len(good) messages are not well formed (a1 unanswered);
	// the rest is.
	bad := append([]llm.Message{good[0], good[1], {Role: llm.RoleUser, Content: "again"}}, turnOf("b", "b1")[1:]...)
	checkRepaired(t, bad, memo.requestHistory(bad))
}

// BenchmarkRequestHistory checks a 2000-turn history before a model call:
// it must not allocate, so the per-turn cost does not grow with garbage.
func BenchmarkRequestHistory(b *testing.B) {
	var msgs []llm.Message
	for i := range 2000 {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "read_file"}, {ID: id + "b", Name: "read_file"}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id + "b"},
			llm.Message{Role: llm.RoleTool, ToolCallID: id})
	}
	b.ReportAllocs()
	for b.Loop() {
		if got := requestHistory(msgs); len(got) != len(msgs) {
			b.Fatal("a well-formed history was rebuilt")
		}
	}
}

// BenchmarkShapeMemo is requestHistory as the run loop calls it, turn after
// turn on a 4,000-message history that grows by one turn per call.
func BenchmarkShapeMemo(b *testing.B) {
	hist := make([]llm.Message, 0, 1<<13) // reallocated now and then, as the engine's is
	for i := range 2000 {
		hist = append(hist, turnOf(fmt.Sprint(i), "c")[1:]...)
	}
	var memo shapeMemo
	memo.requestHistory(hist)
	i := 0
	for b.Loop() {
		hist = append(hist, turnOf(fmt.Sprint(i), "c")[1:]...)
		if got := memo.requestHistory(hist); len(got) != len(hist) {
			b.Fatal("a well-formed history was rebuilt")
		}
		i++
	}
}
