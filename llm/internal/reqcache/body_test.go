package reqcache

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
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

func TestMessagesEncodeOnceAndSweep(t *testing.T) {
	var c Messages[string]
	encoded := 0
	enc := func(m llm.Message) (string, error) { encoded++; return m.Content, nil }
	hist := []llm.Message{{Role: llm.RoleUser, Content: "a"}, {Role: llm.RoleAssistant, Content: "b"}}
	for range 3 {
		if _, _, err := c.Encode(hist, enc); err != nil {
			t.Fatal(err)
		}
	}
	if encoded != 2 {
		t.Errorf("encoded %d times, want each message once", encoded)
	}
	// Many one-off requests: the cache must not keep them all.
	for i := range 2000 {
		_, _, _ = c.Encode([]llm.Message{{Role: llm.RoleUser, Content: strconv.Itoa(i)}}, enc)
	}
	if n := c.Len(); n > 300 {
		t.Errorf("cache holds %d encodings after 2000 one-off calls", n)
	}
}

// An image changed in place, or replaced by one of the same size, is
// encoded again; an unchanged one is not.
func TestMessagesNoticeImageChanges(t *testing.T) {
	var c Messages[string]
	encoded := 0
	enc := func(m llm.Message) (string, error) { encoded++; return string(m.Images[0].Data), nil }
	data := []byte("PNGDATA")
	hist := []llm.Message{{Role: llm.RoleUser, Content: "look", Images: []llm.Image{{MediaType: "image/png", Data: data}}}}
	for range 2 {
		if _, _, err := c.Encode(hist, enc); err != nil {
			t.Fatal(err)
		}
	}
	if encoded != 1 {
		t.Fatalf("encoded %d times", encoded)
	}
	data[0] = 'X'
	out, _, _ := c.Encode(hist, enc)
	if encoded != 2 || out[0] != "XNGDATA" {
		t.Fatalf("in-place change not noticed: %d %q", encoded, out[0])
	}
	hist[0].Images[0].MediaType = "image/jpeg"
	if _, _, _ = c.Encode(hist, enc); encoded != 3 {
		t.Fatal("media type change not noticed")
	}
}

// BenchmarkMessagesEncode measures a call over a 4000-message history
// whose messages were all encoded by an earlier call: the cost a long
// session pays on every turn before its body is assembled.
func BenchmarkMessagesEncode(b *testing.B) {
	var msgs []llm.Message
	for i := range 2000 {
		id := "call_" + strconv.Itoa(i)
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Content: "Calling the tool once more.",
				ToolCalls: []llm.ToolCall{{ID: id, Name: "noop", Input: []byte(`{"n":` + strconv.Itoa(i) + `}`)}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: "noop", Content: "ok"})
	}
	var c Messages[[]byte]
	enc := func(m llm.Message) ([]byte, error) { return []byte(m.Content), nil }
	for b.Loop() {
		out, _, err := c.Encode(msgs, enc)
		if err != nil {
			b.Fatal(err)
		}
		c.Recycle(out)
	}
}

// Conversations sharing one cache from several goroutines (sub-agents on
// one provider) each get their own messages' encodings, while the slices
// Encode returns are recycled between them.
func TestMessagesConcurrentCallsKeepTheirOwnEncodings(t *testing.T) {
	var c Messages[string]
	enc := func(m llm.Message) (string, error) { return m.Content, nil }
	done := make(chan error)
	for g := range 4 {
		go func() {
			var hist []llm.Message
			for i := range 300 {
				hist = append(hist, llm.Message{Role: llm.RoleUser, Content: strconv.Itoa(g) + "/" + strconv.Itoa(i)})
				out, _, err := c.Encode(hist, enc)
				if err == nil && len(out) != len(hist) {
					err = fmt.Errorf("goroutine %d: %d encodings for %d messages", g, len(out), len(hist))
				}
				for k := range out {
					if err == nil && out[k] != hist[k].Content {
						err = fmt.Errorf("goroutine %d: message %d encoded as %q, want %q", g, k, out[k], hist[k].Content)
					}
				}
				c.Recycle(out)
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// A message changed in place after a call is encoded again, whichever
// field changed; one rebuilt with equal contents at new addresses is not
// (it is confirmed by the full check instead of its slot).
func TestMessagesNoticeChangesInPlace(t *testing.T) {
	var c Messages[string]
	encoded := 0
	enc := func(m llm.Message) (string, error) {
		encoded++
		s := m.Content + "|" + m.ToolCallID + "|" + m.Name + "|" + strconv.FormatBool(m.IsError)
		for _, tc := range m.ToolCalls {
			s += "|" + tc.ID + ":" + tc.Name + ":" + string(tc.Input)
		}
		return s, nil
	}
	hist := []llm.Message{
		{Role: llm.RoleAssistant, Content: "calling", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Input: []byte(`{"path":"a"}`)}}},
		{Role: llm.RoleTool, ToolCallID: "c1", Name: "read_file", Content: "text of a"},
	}
	check := func(step string, wantEncoded int) {
		t.Helper()
		out, _, err := c.Encode(hist, enc)
		if err != nil {
			t.Fatal(err)
		}
		for i := range hist {
			want, _ := enc(hist[i])
			encoded--
			if out[i] != want {
				t.Fatalf("%s: message %d encoded as %q, want %q", step, i, out[i], want)
			}
		}
		if encoded != wantEncoded {
			t.Fatalf("%s: %d encodings made, want %d", step, encoded, wantEncoded)
		}
	}
	check("first call", 2)
	check("unchanged", 2)
	hist[0].ToolCalls[0].Input[10] = 'b' // the input's bytes, in place
	check("input changed in place", 3)
	hist[0].ToolCalls[0].ID = string([]byte("c1")) // equal text, new address
	check("id rebuilt equal", 3)
	hist[0].ToolCalls[0].Name = "glob"
	check("name changed", 4)
	hist[1].IsError = true
	check("flag changed", 5)
	hist[1].Content = strings.Clone(hist[1].Content) // equal text, new address
	check("content rebuilt equal", 5)
	hist[1].Content = "text of b"
	check("content changed", 6)
}
