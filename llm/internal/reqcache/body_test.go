package reqcache

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/harness9/harness9/llm"
)

// A body is reused only once its caller and every reader the transport
// got have let go of it.
func TestBodyReusedOnlyWhenReleased(t *testing.T) {
	var bufs Buffers
	b := bufs.Get(16)
	b.Set(append(b.Bytes(), `{"a":1}`...))
	req, err := http.NewRequestWithContext(WithBody(context.Background(), b), "POST", "http://x.invalid/", nil)
	if err != nil {
		t.Fatal(err)
	}
	SetBody(req)
	if req.ContentLength != 7 {
		t.Errorf("ContentLength = %d", req.ContentLength)
	}
	b.Release()
	if got := bufs.Get(16); got == b {
		t.Fatal("reused while the transport still holds a reader")
	}
	data, _ := io.ReadAll(req.Body)
	if string(data) != `{"a":1}` {
		t.Errorf("body = %q", data)
	}
	_ = req.Body.Close()
	_ = req.Body.Close() // a second Close must not release twice
	if got := bufs.Get(16); got != b {
		t.Error("not reused after every holder let go")
	}
	if got := bufs.Get(16); got == b {
		t.Error("handed out twice")
	}
}

// BenchmarkBodyOpen measures a call over a 4000-message history whose
// messages were all encoded by an earlier call, plus the two messages of a
// new turn: the cost a long session pays on every turn before its body is
// assembled. promised: the caller says the earlier messages are unchanged
// (an agent's history); checked: it does not, and each message is looked
// at.
func BenchmarkBodyOpen(b *testing.B) {
	for _, promise := range []bool{true, false} {
		name := "checked"
		if promise {
			name = "promised"
		}
		b.Run(name, func(b *testing.B) {
			msgs := make([]llm.Message, 0, 4002)
			for i := range 2000 {
				msgs = append(msgs, turnMessages(i)...)
			}
			var c Messages[[]byte]
			enc := func(m llm.Message) ([]byte, error) { return []byte(m.Content), nil }
			open(b, &c, msgs, 0, enc).Close()
			turn := turnMessages(2000)
			for b.Loop() {
				// The history grows by a turn and loses it again, in the same array.
				hist := append(msgs, turn...)
				unchanged := 0
				if promise {
					unchanged = len(msgs)
				}
				open(b, &c, hist, unchanged, enc).Close()
				open(b, &c, msgs, unchanged, enc).Close()
			}
		})
	}
}

func turnMessages(i int) []llm.Message {
	id := "call_" + strconv.Itoa(i)
	return []llm.Message{
		{Role: llm.RoleAssistant, Content: "Calling the tool once more.",
			ToolCalls: []llm.ToolCall{{ID: id, Name: "noop", Input: []byte(`{"n":` + strconv.Itoa(i) + `}`)}}},
		{Role: llm.RoleTool, ToolCallID: id, Name: "noop", Content: "ok"}}
}

func open[V any](t testing.TB, c *Messages[V], msgs []llm.Message, unchanged int, enc func(llm.Message) (V, error)) *Call[V] {
	t.Helper()
	k, i, err := c.Open(msgs, unchanged, enc)
	if err != nil {
		t.Fatalf("message %d: %v", i, err)
	}
	return k
}

// values returns the call's encodings and closes it.
func values[V any](k *Call[V]) []V {
	defer k.Close()
	out := make([]V, k.Len())
	for i := range out {
		out[i] = k.At(i)
	}
	return out
}
