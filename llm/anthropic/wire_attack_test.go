package anthropic

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/internal/llmtest"
)

// Through a real HTTP server that redirects (the body sent again through
// GetBody), fails with 500 (the same body retried) and cuts connections
// while the body is half read, with several conversations sharing one
// provider at once (sub-agents): the bytes the server receives for every
// request are the body a provider that never saw an earlier request
// builds, cache markers included.
func TestBytesOnTheWireAreTheFreshBody(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := n.Add(1)
		if r.URL.RawQuery == "" {
			switch k % 5 {
			case 1:
				http.Redirect(w, r, r.URL.Path+"?redirected=1", http.StatusTemporaryRedirect)
				return
			case 2:
				_, _ = io.ReadAll(r.Body)
				apiError(http.StatusInternalServerError, "api_error", "busy")(w, r)
				return
			case 3:
				_, _ = io.ReadFull(r.Body, make([]byte, r.ContentLength/2))
				panic(http.ErrAbortHandler)
			}
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("reading a request body: %v", err)
		}
		sum := sha256.Sum256(body)
		sse(textReply(hex.EncodeToString(sum[:]))...)(w, r)
	}))
	defer srv.Close()
	sl := &sleeper{}
	p := New(WithBaseURL(srv.URL), WithAPIKey("sk-ant-test"), WithPromptCache(true),
		WithRetry(llm.RetryPolicy{MaxRetries: 60, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxTotal: time.Hour,
			Sleep: sl.Sleep, Jitter: func() float64 { return 0 }}))
	var wg sync.WaitGroup
	for g := range uint64(3) {
		wg.Go(func() {
			i := 0
			for req := range llmtest.HistoriesShared(300+g, 120, llmtest.Sharing(g)) {
				req.Tools = testTools
				want, err := bodyBytes(New(WithAPIKey(""), WithBaseURL("http://unused.invalid"), WithPromptCache(true)), req)
				if err != nil {
					t.Error(err)
					return
				}
				sum := sha256.Sum256(want)
				resp, err := llm.Collect(p.Stream(context.Background(), req))
				if err != nil {
					t.Errorf("conversation %d, request %d: %v", g, i, err)
					return
				}
				if got := resp.Message.Content; got != hex.EncodeToString(sum[:]) {
					t.Errorf("conversation %d, request %d (%d messages): the server received a body other than the fresh one", g, i, len(req.Messages))
					return
				}
				i++
			}
		})
	}
	wg.Wait()
}
