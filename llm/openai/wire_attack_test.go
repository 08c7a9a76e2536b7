package openai

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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

// wireServer answers every chat completion with the SHA-256 of the body it
// received, as text. On the way it makes the client work: a 307 redirect
// (the body is sent again through GetBody), a 500 (the same body retried),
// a connection cut while the body is half read.
func wireServer(t *testing.T) *httptest.Server {
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
				http.Error(w, `{"error":{"message":"busy"}}`, http.StatusInternalServerError)
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
		if r.URL.Path == "/v1/responses" {
			events(append(append([]string{created()}, textEvents(0, hex.EncodeToString(sum[:]))...), completed(1, 0, 1, 0))...)(w, r)
			return
		}
		sse(true, roleChunk(), textChunk(hex.EncodeToString(sum[:])), finishChunk("stop"))(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Through a real HTTP server, with redirects, retries and cut connections,
// and several conversations sharing one provider at once (sub-agents):
// the bytes the server receives for every request are the body a provider
// that never saw an earlier request builds.
//
// Both wires: Chat Completions and Responses.
func TestBytesOnTheWireAreTheFreshBody(t *testing.T) {
	for _, api := range []API{APIChat, APIResponses} {
		t.Run(string(api), func(t *testing.T) { bytesOnTheWire(t, api) })
	}
}

func bytesOnTheWire(t *testing.T, api API) {
	srv := wireServer(t)
	sl := &sleeper{}
	p := New(WithBaseURL(srv.URL+"/v1"), WithAPIKey("sk-test"), WithAPI(api),
		WithRetry(llm.RetryPolicy{MaxRetries: 60, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxTotal: time.Hour,
			Sleep: sl.Sleep, Jitter: func() float64 { return 0 }}))
	fresh := func(req llm.Request) ([]byte, error) {
		f := New(WithAPIKey(""), WithBaseURL("http://unused.invalid/v1"), WithAPI(api))
		if api == APIResponses {
			b, err := f.responsesBody(req)
			if err != nil {
				return nil, err
			}
			defer b.Release()
			return bytes.Clone(b.Bytes()), nil
		}
		return bodyBytes(f, req)
	}
	var wg sync.WaitGroup
	for g := range uint64(3) {
		wg.Go(func() {
			i := 0
			for req := range llmtest.HistoriesShared(200+g, 120, llmtest.Sharing(g)) {
				req.Tools = benchTools
				want, err := fresh(req)
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
					t.Errorf("conversation %d, request %d: the server received a body other than the fresh one (%s)", g, i,
						fmt.Sprint(len(req.Messages), " messages"))
					return
				}
				i++
			}
		})
	}
	wg.Wait()
}
