package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"
)

// ErrStreamTruncated reports a response stream that ended before the
// provider said it was complete (no finish reason, no message_stop). It is
// treated like a dropped connection.
var ErrStreamTruncated = errors.New("the response stream ended before the model finished")

// ProviderError is the error a provider yields when a model call fails. It
// names the provider, the HTTP status (0 when no response arrived: a refused or
// dropped connection, a malformed stream) and the API's own message.
type ProviderError struct {
	// Provider is the provider's short name, e.g. "openai".
	Provider string
	// Status is the HTTP status code, 0 when there was no HTTP response.
	Status int
	// Message is the API's error message, or a description of the failure.
	Message string
	// Err is the underlying error, if any.
	Err error
	// RetryAfter is the wait the server asked for (Retry-After), 0 if none.
	RetryAfter time.Duration
	// Attempts is how many times the call was tried before giving up.
	Attempts int
}

// Error names the provider, the status and the message, e.g.
// "openai: HTTP 429 Too Many Requests: Rate limit reached (after 4 attempts)".
func (e *ProviderError) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	b.WriteString(": ")
	if e.Status != 0 {
		fmt.Fprintf(&b, "HTTP %d", e.Status)
		if t := http.StatusText(e.Status); t != "" {
			b.WriteString(" " + t)
		}
		if e.Message != "" {
			b.WriteString(": ")
		}
	}
	b.WriteString(e.Message)
	if e.Message == "" && e.Err != nil {
		if e.Status != 0 {
			b.WriteString(": ")
		}
		b.WriteString(e.Err.Error())
	}
	var notes []string
	if e.RetryAfter > 0 {
		notes = append(notes, "the server asked to retry after "+e.RetryAfter.String())
	}
	if e.Attempts > 1 {
		notes = append(notes, fmt.Sprintf("after %d attempts", e.Attempts))
	}
	if len(notes) > 0 {
		b.WriteString(" (" + strings.Join(notes, ", ") + ")")
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *ProviderError) Unwrap() error { return e.Err }

// Retryable reports whether another attempt could succeed: rate limits (429),
// request timeouts (408), server errors (5xx) and connection failures.
// Cancellation and malformed responses are not retryable.
func (e *ProviderError) Retryable() bool {
	if errors.Is(e.Err, context.Canceled) || errors.Is(e.Err, context.DeadlineExceeded) {
		return false
	}
	switch {
	case e.Status == http.StatusTooManyRequests, e.Status == http.StatusRequestTimeout, e.Status >= 500:
		return true
	case e.Status != 0:
		return false
	}
	return IsConnectionError(e.Err)
}

// IsConnectionError reports whether err is a transport failure (refused,
// reset or dropped connection, truncated stream) rather than an answer from
// the server.
func IsConnectionError(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var netErr net.Error
	return errors.Is(err, ErrStreamTruncated) ||
		errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) ||
		errors.As(err, &netErr)
}

// UnsentError is a request that failed before any response came: a
// connection error, or a step of the provider's own (signing, fetching a
// credential) that failed. Providers classify it by its Err.
type UnsentError struct{ Err error }

func (e *UnsentError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *UnsentError) Unwrap() error { return e.Err }

// Unsent marks err as the failure of a request that got no response; nil
// stays nil.
func Unsent(err error) error {
	if err == nil {
		return nil
	}
	return &UnsentError{Err: err}
}

// maxMessage caps an error message taken from a response body.
const maxMessage = 500

// ResponseError turns an HTTP error response (status >= 400) into a
// *ProviderError carrying the API's message and the Retry-After hint. It reads
// and closes the body. Both providers call it from an SDK middleware so that
// error handling does not depend on how each SDK shapes its own errors.
func ResponseError(provider string, res *http.Response) *ProviderError {
	body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	_ = res.Body.Close()
	after, _ := RetryAfter(res.Header, time.Now())
	return &ProviderError{
		Provider:   provider,
		Status:     res.StatusCode,
		Message:    ErrorMessage(body),
		RetryAfter: after,
		Err:        fmt.Errorf("HTTP %d", res.StatusCode),
	}
}

// ErrorMessage extracts a human-readable message from an API error body. It
// understands the OpenAI and Anthropic shapes ({"error":{"message":...}}),
// the plain {"error":"..."} of Ollama and vLLM, and {"message"|"detail":...};
// otherwise it returns the trimmed body, capped.
func ErrorMessage(body []byte) string {
	body = bytes.TrimSpace(body)
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			return capMessage(inner.Message)
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return capMessage(s)
		case v.Message != "":
			return capMessage(v.Message)
		case v.Detail != nil:
			if s, ok := v.Detail.(string); ok {
				return capMessage(s)
			}
			d, _ := json.Marshal(v.Detail)
			return capMessage(string(d))
		case inner.Type != "":
			return inner.Type
		}
	}
	return capMessage(string(body))
}

func capMessage(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxMessage {
		s = s[:maxMessage] + "…"
	}
	return s
}
