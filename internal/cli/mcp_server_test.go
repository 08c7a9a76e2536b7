package cli_test

import (
	"context"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harness9/harness9/internal/lib/pgtest"
)

// envServeMCP makes the test binary an MCP server on stdio instead of
// running tests: end-to-end tests configure it as a server of the harness9
// binary they drive.
const envServeMCP = "HARNESS9_TEST_SERVE_MCP"

// envMCPOut is the file the server's "put" tool writes.
const envMCPOut = "HARNESS9_TEST_MCP_OUT"

func TestMain(m *testing.M) {
	if os.Getenv(envServeMCP) == "1" {
		serveMCP()
		return
	}
	// Runs the tests, then stops the PostgreSQL cluster if one was started.
	pgtest.Main(m)
}

// serveMCP serves one tool that changes something (no readOnlyHint): put
// writes its text to the file named by envMCPOut.
func serveMCP() {
	s := mcp.NewServer(&mcp.Implementation{Name: "srv", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "put", Description: "Store a text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Text string `json:"text"`
		}) (*mcp.CallToolResult, any, error) {
			if err := os.WriteFile(os.Getenv(envMCPOut), []byte(in.Text), 0o600); err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "stored"}}}, nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		os.Exit(1)
	}
}
