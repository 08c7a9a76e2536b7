package reqcache

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/harness9/harness9/llm"
)

// prefixBody builds one body from head and the messages' texts, marking
// after each message, as a provider does.
func prefixBody(c *Messages[string], head string, msgs []llm.Message) *Body {
	k, _, _ := c.Open(msgs, 0, func(m llm.Message) (string, error) { return m.Content, nil })
	defer k.Close()
	b, buf, at := k.Start([]byte(head), k.Len(), 0, func() int { return 64 })
	for i := at.N; i < k.Len(); i++ {
		buf = append(buf, k.At(i)...)
		b.Mark(i+1, buf, 0)
	}
	return b.Finish(buf)
}

// conversation is a history of two messages in one array, the second of
// which a test changes in place.
func conversation(second string) []llm.Message {
	return []llm.Message{{Role: llm.RoleUser, Content: `"shared",`}, {Role: llm.RoleUser, Content: second}}
}

func sendable(t *testing.T, b *Body) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(WithBody(context.Background(), b), "POST", "http://x.invalid/", nil)
	if err != nil {
		t.Fatal(err)
	}
	SetBody(req)
	return req
}

// net/http lets a transport Close a request body while (or before) it
// still Reads it (HTTP/2 closes it from another goroutine when a stream is
// aborted). Once the body is closed and released, the Prefix cuts it back
// and writes the next conversation's messages into the same buffer: a read
// of the closed body must not hand those bytes to the old request.
func TestClosedBodyReaderNeverSeesTheNextBody(t *testing.T) {
	var c Messages[string]
	hist := conversation(`"conversation A secret"`)
	first := prefixBody(&c, `{"h":[`, hist)
	req := sendable(t, first)
	head := make([]byte, 10)
	if _, err := io.ReadFull(req.Body, head); err != nil {
		t.Fatal(err)
	}
	_ = req.Body.Close() // the transport aborts the stream...
	first.Release()      // ...and the call ends
	hist[1].Content = `"conversation B's own bytes"`
	second := prefixBody(&c, `{"h":[`, hist)
	defer second.Release()
	if second != first {
		t.Fatal("the test wants the second body built on the first")
	}
	rest, _ := io.ReadAll(req.Body) // ...while a Read was still due
	sent := append(head, rest...)
	if bytes.Contains(sent, []byte("conversation B")) {
		t.Fatalf("the aborted request read another request's bytes: %q", sent)
	}
}

// Reads and Closes of one body's readers race with the next build (run
// with -race): every byte read is the body's own.
func TestConcurrentReadCloseAndRebuild(t *testing.T) {
	var c Messages[string]
	want := []byte(`{"h":["shared","conversation A"`)
	hist := conversation("")
	for range 200 {
		hist[1].Content = `"conversation A"`
		first := prefixBody(&c, `{"h":[`, hist)
		req := sendable(t, first)
		var wg sync.WaitGroup
		var got []byte
		wg.Go(func() {
			buf := make([]byte, 3)
			for {
				n, err := req.Body.Read(buf)
				got = append(got, buf[:n]...)
				if err != nil {
					return
				}
			}
		})
		wg.Go(func() {
			_ = req.Body.Close()
			first.Release()
			hist[1].Content = `"conversation B!"`
			prefixBody(&c, `{"h":[`, hist).Release()
		})
		wg.Wait()
		if !bytes.HasPrefix(want, got) {
			t.Fatalf("read %q, not a prefix of the body %q", got, want)
		}
	}
}
