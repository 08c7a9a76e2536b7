// Package startfloor holds the programs scripts/bench starts to show what
// starting a process costs on the machine it runs on, apart from anything
// harness9 does: hello prints a line; nethttp links net/http, which every
// provider needs; sdks links only the libraries every harness9 front end
// is built on (the OpenAI and Anthropic SDKs, SQLite, the MCP SDK, Bubble
// Tea and the tokenizer). `harness9 version` cannot start faster than
// sdks does: Go runs every linked package's initialisation before main.
package startfloor
