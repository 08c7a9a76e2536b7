// The JSON API's plumbing: errors as statuses, bodies in and out, and
// the token check in front of every handler.

package service

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/harness9/harness9/internal/lib/eventjson"
)

// notFoundError is a 404 whose message says what was missing.
type notFoundError struct{ msg string }

func (e *notFoundError) Error() string { return e.msg }

// badRequest is a 400 whose message names the fix.
type badRequest struct{ msg string }

func (e *badRequest) Error() string { return e.msg }

func badReq(format string, args ...any) error { return &badRequest{fmt.Sprintf(format, args...)} }

// writeJSON writes v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := eventjson.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"cannot encode the response"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeError maps err to its status and writes {"error": "..."}.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusInternalServerError
	var (
		bad  *badRequest
		nf   *notFoundError
		conf *conflictError
		many *tooManyError
		mbe  *http.MaxBytesError
	)
	switch {
	case errors.As(err, &many):
		status = http.StatusTooManyRequests
		w.Header().Set("Retry-After", many.retryAfter())
	case errors.As(err, &mbe):
		status = http.StatusRequestEntityTooLarge
		err = fmt.Errorf("the request body is larger than %d bytes", mbe.Limit)
	case errors.As(err, &bad):
		status = http.StatusBadRequest
	case errors.As(err, &nf):
		status = http.StatusNotFound
	case errors.As(err, &conf):
		status = http.StatusConflict
	default:
		s.log.ErrorContext(r.Context(), "serve: request failed", "request", pathFor(r), "err", err)
	}
	writeJSON(w, status, map[string]string{"error": err.Error()})
}

// decode reads a JSON body strictly into v: a JSON content type, a size
// limit, no unknown fields, one value.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return badReq("Content-Type must be application/json, not %q", ct)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return badReq("reading the request body: %v", err)
	}
	// encoding/json would replace invalid UTF-8 with U+FFFD and go on: the
	// prompt the model sees and the title stored would not be what was sent.
	if !utf8.Valid(body) {
		return badReq("the request body is not valid UTF-8; send JSON text in UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return badReq("the request body is empty; send a JSON object")
		}
		return badReq("the request body is not valid: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return badReq("the request body must hold one JSON object and nothing after it")
	}
	return nil
}

// authed wraps an API handler with authentication and, for changes, the
// CSRF check of cookie logins.
func (s *Server) authed(h func(w http.ResponseWriter, r *http.Request, p *principal) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := s.authenticate(r)
		if err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="harness9"`)
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": err.Error()})
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if err := checkCSRF(p, r); err != nil {
				writeJSON(w, http.StatusForbidden, map[string]string{"error": err.Error()})
				return
			}
		}
		if err := s.rates.allow(p.name); err != nil {
			s.writeError(w, r, err)
			return
		}
		if err := h(w, r, p); err != nil {
			s.writeError(w, r, err)
		}
	}
}
