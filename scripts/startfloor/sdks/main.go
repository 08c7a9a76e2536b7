// Command sdks is the start-up floor of a program built on the libraries
// every harness9 front end links (see startfloor).
package main

import (
	"fmt"

	_ "charm.land/bubbletea/v2"
	_ "github.com/anthropics/anthropic-sdk-go/v2"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/openai/openai-go/v3"
	_ "github.com/tiktoken-go/tokenizer"
	_ "modernc.org/sqlite"
)

func main() { fmt.Println("sdks") }
