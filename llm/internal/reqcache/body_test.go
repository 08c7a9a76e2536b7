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
