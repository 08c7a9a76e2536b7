//go:build !otlp && !temporal

package otelsetup

import (
	"context"
	"errors"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/harness9/harness9/internal/config"
)

// OTLPBuiltIn reports whether this binary can export over OTLP: not the
// default build (see otlp.go).
const OTLPBuiltIn = false

var errNoOTLP = errors.New("this harness9 was built without the OTLP exporters (go build -tags otlp)")

func traceExporter(context.Context, config.TelemetryConfig) (sdktrace.SpanExporter, error) {
	return nil, errNoOTLP
}

func metricExporter(context.Context, config.TelemetryConfig) (sdkmetric.Exporter, error) {
	return nil, errNoOTLP
}
