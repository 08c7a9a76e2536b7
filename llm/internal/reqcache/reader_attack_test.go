package reqcache

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
)

// prefixBody builds one body on p from head and messages, marking after
// each message, as a provider does.
func prefixBody(p *Prefix, head string, ids []uint64, msgs []string) *Body {
	b, buf, at := p.Start([]byte(head), ids, len(ids), 0, 64)
	for i := at.N; i < len(msgs); i++ {
		buf = append(buf, msgs[i]...)
		b.Mark(i+1, buf, 0)
	}
	return b.Finish(buf)
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
	var p Prefix
	first := prefixBody(&p, `{"h":[`, []uint64{1, 2}, []string{`"shared",`, `"conversation A secret"`})
	req := sendable(t, first)
	head := make([]byte, 10)
	if _, err := io.ReadFull(req.Body, head); err != nil {
		t.Fatal(err)
	}
	_ = req.Body.Close() // the transport aborts the stream...
	first.Release()      // ...and the call ends
	second := prefixBody(&p, `{"h":[`, []uint64{1, 3}, []string{`"shared",`, `"conversation B's own bytes"`})
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
	var p Prefix
	want := []byte(`{"h":["shared","conversation A"`)
	for range 200 {
		first := prefixBody(&p, `{"h":[`, []uint64{1, 2}, []string{`"shared",`, `"conversation A"`})
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
			prefixBody(&p, `{"h":[`, []uint64{1, 3}, []string{`"shared",`, `"conversation B!"`}).Release()
		})
		wg.Wait()
		if !bytes.HasPrefix(want, got) {
			t.Fatalf("read %q, not a prefix of the body %q", got, want)
		}
	}
}
