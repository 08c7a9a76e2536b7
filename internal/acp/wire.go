package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
)

// The SDK reads newline-delimited JSON and, for a line it cannot parse,
// logs and goes on without answering; a line over 10 MB ends its reader,
// and with it the connection. A client that sends a bad line must get a
// JSON-RPC error and the agent must go on, so every line is looked at
// here first: a valid message is passed to the SDK, anything else is
// answered (JSON-RPC 2.0 §5.1) on the same output, with the same lock as
// the SDK's messages so lines never interleave.

// maxLine is the longest line passed on, below the SDK's 10 MB limit.
const maxLine = 8 << 20

// lineWriter writes whole messages one at a time and runs hooks once a
// message containing a given text has been written (a session/new
// response: what depends on the client knowing the session comes after).
type lineWriter struct {
	mu    sync.Mutex
	w     io.Writer
	after []afterHook
}

type afterHook struct {
	needle []byte
	fn     func()
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.w.Write(p)
	var run []func()
	keep := l.after[:0]
	for _, h := range l.after {
		if bytes.Contains(p, h.needle) {
			run = append(run, h.fn)
		} else {
			keep = append(keep, h)
		}
	}
	l.after = keep
	l.mu.Unlock()
	for _, fn := range run {
		go fn()
	}
	return n, err
}

// afterLine runs fn (on its own goroutine) once a line containing needle
// has been written.
func (l *lineWriter) afterLine(needle string, fn func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.after = append(l.after, afterHook{needle: []byte(needle), fn: fn})
}

// filterInput copies the valid messages of in to pass, one per line, and
// answers the others on reply. It closes pass when in ends.
func filterInput(in io.Reader, pass io.WriteCloser, reply io.Writer, log *slog.Logger) {
	defer pass.Close()
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r)
		switch {
		case tooLong:
			log.Warn("acp: dropped a message longer than the limit", "limit_bytes", maxLine)
			answer(reply, json.RawMessage("null"), sdk.NewInvalidRequest(map[string]any{
				"error": fmt.Sprintf("the message is longer than %d MB; send smaller messages (attach large files as resource links)", maxLine>>20)}))
		case len(bytes.TrimSpace(line)) > 0:
			if id, rerr := check(line); rerr != nil {
				log.Warn("acp: answered a malformed message with an error", "code", rerr.Code, "error", rerr.Data)
				answer(reply, id, rerr)
			} else if _, werr := pass.Write(append(line, '\n')); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one line without its newline. A line over maxLine is
// read to its end and dropped (tooLong).
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxLine+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// check returns nil for a line the SDK can take: a JSON object that is a
// request, a notification or a response. Otherwise it returns the error
// to answer with and the id to answer (null when the message has none
// that can be used).
func check(line []byte) (json.RawMessage, *sdk.RequestError) {
	null := json.RawMessage("null")
	line = bytes.TrimSpace(line)
	if !json.Valid(line) {
		return null, sdk.NewParseError(map[string]any{"error": "the line is not valid JSON; send one JSON-RPC 2.0 message per line"})
	}
	if line[0] != '{' {
		what := "a JSON-RPC message must be a JSON object"
		if line[0] == '[' {
			what = "batches are not part of the Agent Client Protocol; send one message per line"
		}
		return null, sdk.NewInvalidRequest(map[string]any{"error": what})
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return null, sdk.NewInvalidRequest(map[string]any{"error": err.Error()})
	}
	id, hasID := m["id"]
	if hasID && !validID(id) {
		return null, sdk.NewInvalidRequest(map[string]any{"error": "the id must be a string, a number or null"})
	}
	if !hasID {
		id = null
	}
	var version string
	if json.Unmarshal(m["jsonrpc"], &version) != nil || version != "2.0" {
		return id, sdk.NewInvalidRequest(map[string]any{"error": `"jsonrpc" must be "2.0"`})
	}
	raw, hasMethod := m["method"]
	if hasMethod {
		var method string
		if json.Unmarshal(raw, &method) != nil || method == "" {
			return id, sdk.NewInvalidRequest(map[string]any{"error": `"method" must be a non-empty string`})
		}
		return nil, nil
	}
	_, hasResult := m["result"]
	_, hasError := m["error"]
	if !hasID || hasResult == hasError {
		return id, sdk.NewInvalidRequest(map[string]any{"error": `a message needs a "method" (request or notification), or an "id" with one of "result" and "error" (response)`})
	}
	if hasError {
		var e sdk.RequestError
		if json.Unmarshal(m["error"], &e) != nil {
			return id, sdk.NewInvalidRequest(map[string]any{"error": `"error" must be an object with a code and a message`})
		}
	}
	return nil, nil
}

// validID reports whether raw is a JSON string, number or null.
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// answer writes a JSON-RPC error response.
func answer(w io.Writer, id json.RawMessage, e *sdk.RequestError) {
	b, err := json.Marshal(struct {
		JSONRPC string            `json:"jsonrpc"`
		ID      json.RawMessage   `json:"id"`
		Error   *sdk.RequestError `json:"error"`
	}{"2.0", id, e})
	if err != nil {
		return
	}
	_, _ = w.Write(append(b, '\n'))
}
