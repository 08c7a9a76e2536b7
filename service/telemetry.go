package service

import (
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// WithTracing makes every request a server span of tp, a child of the
// caller's span when the request carries one (traceparent, read by prop);
// the runs a request starts belong to its trace.
func WithTracing(tp trace.TracerProvider, prop propagation.TextMapPropagator) Option {
	return func(s *Server) { s.tracer, s.prop = tp.Tracer("github.com/harness9/harness9/service"), prop }
}

// WithMetrics serves h at GET /metrics to any holder of a valid token (a
// Prometheus scrape job sends one as its bearer credentials).
func WithMetrics(h http.Handler) Option { return func(s *Server) { s.metrics = h } }

// metricsRoute registers /metrics when the server has metrics. It is not
// part of the JSON API (nor of /openapi.json).
func (s *Server) metricsRoute() {
	if s.metrics == nil {
		return
	}
	s.mux.HandleFunc("GET /metrics", s.authed(func(w http.ResponseWriter, r *http.Request, _ *principal) error {
		s.metrics.ServeHTTP(w, r)
		return nil
	}))
}

// traced wraps h in the request's server span.
func (s *Server) traced(h http.Handler) http.Handler {
	if s.tracer == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := s.prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := s.tracer.Start(ctx, r.Method, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("http.request.method", r.Method), attribute.String("url.path", r.URL.Path)))
		defer span.End()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		r = r.WithContext(ctx)
		h.ServeHTTP(sw, r)
		if r.Pattern != "" {
			span.SetName(r.Pattern)
			span.SetAttributes(attribute.String("http.route", r.Pattern))
		}
		span.SetAttributes(attribute.Int("http.response.status_code", sw.status))
		if sw.status >= 500 {
			span.SetStatus(codes.Error, http.StatusText(sw.status))
		}
	})
}

// statusWriter notes the status a handler writes.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// Flush lets event streams through the wrapper.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
