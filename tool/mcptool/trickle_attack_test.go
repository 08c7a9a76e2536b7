package mcptool

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An HTTP MCP server whose tool never answers but keeps the call's event
// stream alive with a progress notification every few milliseconds (no
// event is large, so the per-event cap never trips): the call is given up
// after the call timeout and the model gets an error result, instead of
// the agent waiting forever.
func TestTricklingToolCallIsGivenUp(t *testing.T) {
	stop := make(chan struct{}) // the test's end: the server gives up too
	s := mcp.NewServer(&mcp.Implementation{Name: "trickle", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Never finishes."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			for i := 0; ; i++ {
				select {
				case <-ctx.Done():
					return nil, nil, ctx.Err()
				case <-stop:
					return nil, nil, nil
				case <-time.After(5 * time.Millisecond):
				}
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: "t", Progress: float64(i), Message: "still working"})
			}
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer srv.Close()
	defer close(stop)

	m, err := Connect(context.Background(), map[string]ServerConfig{"trickle": {URL: srv.URL, Type: "http"}},
		WithCallTimeout(300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tl := toolsByName(m)["mcp__trickle__slow"]
	if tl == nil {
		t.Fatalf("tools = %v", m.Status())
	}
	res, err := tl.Execute(context.Background(), json.RawMessage(`{}`))
	if err != nil {
		t.Fatalf("a call timeout is a result for the model, not an error of the loop: %v", err)
	}
	if !res.IsError || !strings.Contains(res.Output, "300ms") {
		t.Fatalf("result = %+v, want an error result naming the timeout", res)
	}
}
