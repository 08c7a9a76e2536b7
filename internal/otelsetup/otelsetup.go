// Package otelsetup builds the OpenTelemetry SDK for the harness9 command
// line from its configuration ([telemetry] and the standard OTEL_*
// variables): OTLP exporters over HTTP or gRPC, a Prometheus page for
// serve, the W3C trace-context propagator, and the telemetry.Telemetry the
// engines observe with. Nothing is built, started or linked into a run's
// hot path while telemetry is off.
package otelsetup

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/telemetry"
)

// Options are what the program knows about itself.
type Options struct {
	// Version is harness9's version (service.version).
	Version string
	// Command is the command running ("harness9 serve"), recorded as the
	// resource's harness9.command: never its arguments, which hold the
	// prompt.
	Command string
	// Prices are the configured model prices, for the cost metric.
	Prices func(model string) (llm.Price, bool)
	// Sandbox names how commands are confined.
	Sandbox string
}

// Setup is the process's telemetry.
type Setup struct {
	Telemetry *telemetry.Telemetry
	Tracer    trace.TracerProvider
	// Propagator reads and writes traceparent (W3C trace context).
	Propagator propagation.TextMapPropagator
	// Metrics serves the Prometheus page; nil unless Prometheus is on.
	Metrics http.Handler
	// PrometheusListen is the separate address of the page ("" = the
	// API's, behind its tokens).
	PrometheusListen string

	shutdown []func(context.Context) error
}

var (
	mu  sync.Mutex
	cur *Setup
)

// Get returns the process's telemetry, building it the first time: nil
// when cfg turns nothing on. OTLP export in a build without it (OTLPBuiltIn)
// fails; Available says what a build can do. Later calls return the first Setup, whatever
// cfg they pass (one process, one set of exporters).
func Get(ctx context.Context, cfg config.TelemetryConfig, o Options) (*Setup, error) {
	mu.Lock()
	defer mu.Unlock()
	if cur != nil || !cfg.On() {
		return cur, nil
	}
	s, err := build(ctx, cfg, o)
	if err != nil {
		return nil, err
	}
	cur = s
	return s, nil
}

// Available is cfg without what this build cannot do (OTLP export without
// the exporters), and why it was left out ("" when nothing was).
func Available(cfg config.TelemetryConfig) (config.TelemetryConfig, string) {
	if OTLPBuiltIn || !cfg.Traces && !cfg.Metrics {
		return cfg, ""
	}
	cfg.Traces, cfg.Metrics = false, false
	return cfg, "OpenTelemetry export is configured (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_*_EXPORTER=otlp or [telemetry]) " +
		"but this harness9 was built without the OTLP exporters: nothing is exported. Build it with " +
		"`go build -tags otlp ./cmd/harness9` (a -tags temporal build has them too)"
}

// Shutdown flushes what is left to export and stops the exporters; the
// next Get builds anew.
func Shutdown(ctx context.Context) error {
	mu.Lock()
	s := cur
	cur = nil
	mu.Unlock()
	if s == nil {
		return nil
	}
	var errs []error
	for i := len(s.shutdown) - 1; i >= 0; i-- {
		errs = append(errs, s.shutdown[i](ctx))
	}
	return errors.Join(errs...)
}

func build(ctx context.Context, cfg config.TelemetryConfig, o Options) (*Setup, error) {
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName("harness9"), semconv.ServiceVersion(o.Version),
			attribute.String("harness9.command", o.Command)),
		resource.WithTelemetrySDK(), resource.WithHost(), resource.WithProcessPID(),
		resource.WithFromEnv()) // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES win
	if err != nil && res == nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	s := &Setup{Propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
		PrometheusListen: cfg.PrometheusListen}
	s.Tracer = tracenoop.NewTracerProvider()
	if cfg.Traces {
		exp, err := traceExporter(ctx, cfg)
		if err != nil {
			return nil, err
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		s.Tracer = tp
		s.shutdown = append(s.shutdown, tp.Shutdown)
	}
	var readers []sdkmetric.Option
	if cfg.Metrics {
		exp, err := metricExporter(ctx, cfg)
		if err != nil {
			return nil, errors.Join(err, s.stop(ctx))
		}
		readers = append(readers, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
	}
	if cfg.Prometheus {
		r := sdkmetric.NewManualReader()
		readers = append(readers, sdkmetric.WithReader(r))
		s.Metrics = telemetry.PrometheusHandler(r)
	}
	var mp *sdkmetric.MeterProvider
	if len(readers) > 0 {
		mp = sdkmetric.NewMeterProvider(append(readers, sdkmetric.WithResource(res))...)
		s.shutdown = append(s.shutdown, mp.Shutdown)
		otel.SetMeterProvider(mp)
	}
	otel.SetTracerProvider(s.Tracer)
	otel.SetTextMapPropagator(s.Propagator)
	opts := []telemetry.Option{telemetry.WithTracerProvider(s.Tracer), telemetry.WithContent(cfg.LogPrompts),
		telemetry.WithPrices(o.Prices), telemetry.WithSandbox(o.Sandbox)}
	if mp != nil {
		opts = append(opts, telemetry.WithMeterProvider(mp))
	}
	if s.Telemetry, err = telemetry.New(opts...); err != nil {
		return nil, errors.Join(err, s.stop(ctx))
	}
	return s, nil
}

func (s *Setup) stop(ctx context.Context) error {
	var errs []error
	for _, f := range s.shutdown {
		errs = append(errs, f(ctx))
	}
	return errors.Join(errs...)
}

// StartCommand starts the span of a command that runs agents (run), a
// child of the caller's when TRACEPARENT names one (as CI systems pass
// it), so that everything the command does is one trace. Without
// telemetry it returns ctx and a no-op span.
func (s *Setup) StartCommand(ctx context.Context, name string) (context.Context, trace.Span) {
	if s == nil {
		return ctx, trace.SpanFromContext(ctx)
	}
	if tp := os.Getenv("TRACEPARENT"); tp != "" {
		ctx = s.Propagator.Extract(ctx, propagation.MapCarrier{"traceparent": tp, "tracestate": os.Getenv("TRACESTATE")})
	}
	return s.Tracer.Tracer("github.com/harness9/harness9/internal/cli").Start(ctx, name)
}
