package harness_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// helperEnv makes the test binary a stdio MCP server (TestMain).
const helperEnv = "HARNESS9_HARNESS_MCP_HELPER"

type echoIn struct {
	Message string `json:"message"`
}

// TestMain doubles as a stdio MCP server with an echo tool when started as
// a helper process.
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "serve" {
		s := mcp.NewServer(&mcp.Implementation{Name: "helper", Version: "1"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo a message."},
			func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Echo: " + in.Message}}}, nil, nil
			})
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
