//go:build otlp || temporal

package otelsetup

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/harness9/harness9/internal/config"
)

// The OTLP exporters build only with -tags otlp (or temporal): their
// protobuf and gRPC packages (OTLP/HTTP's request types come with gRPC's)
// cost every start of the binary about 1.5 ms, which the default build
// does not pay (TestDefaultBuildLinksNoTemporal keeps gRPC out of it).
// otlp_off.go is the default build's side.

// OTLPBuiltIn reports whether this binary can export over OTLP.
const OTLPBuiltIn = true

// endpoint is the file's endpoint for a signal, when no OTEL_* variable
// names one (the exporters read those themselves); for HTTP the signal's
// path is added, as the exporters do to OTEL_EXPORTER_OTLP_ENDPOINT.
func endpoint(cfg config.TelemetryConfig, signalVar, path string) string {
	if cfg.Endpoint == "" || os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv(signalVar) != "" {
		return ""
	}
	if cfg.Protocol == config.ProtocolGRPC {
		return cfg.Endpoint
	}
	return strings.TrimRight(cfg.Endpoint, "/") + path
}

func traceExporter(ctx context.Context, cfg config.TelemetryConfig) (sdktrace.SpanExporter, error) {
	url := endpoint(cfg, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "/v1/traces")
	var exp sdktrace.SpanExporter
	var err error
	if cfg.Protocol == config.ProtocolGRPC {
		var opts []otlptracegrpc.Option
		if url != "" {
			opts = append(opts, otlptracegrpc.WithEndpointURL(url))
		}
		exp, err = otlptracegrpc.New(ctx, opts...)
	} else {
		var opts []otlptracehttp.Option
		if url != "" {
			opts = append(opts, otlptracehttp.WithEndpointURL(url))
		}
		exp, err = otlptracehttp.New(ctx, opts...)
	}
	if err != nil {
		return nil, fmt.Errorf("telemetry: the OTLP trace exporter (%s): %w", cfg.Protocol, err)
	}
	return exp, nil
}

func metricExporter(ctx context.Context, cfg config.TelemetryConfig) (sdkmetric.Exporter, error) {
	url := endpoint(cfg, "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "/v1/metrics")
	var exp sdkmetric.Exporter
	var err error
	if cfg.Protocol == config.ProtocolGRPC {
		var opts []otlpmetricgrpc.Option
		if url != "" {
			opts = append(opts, otlpmetricgrpc.WithEndpointURL(url))
		}
		exp, err = otlpmetricgrpc.New(ctx, opts...)
	} else {
		var opts []otlpmetrichttp.Option
		if url != "" {
			opts = append(opts, otlpmetrichttp.WithEndpointURL(url))
		}
		exp, err = otlpmetrichttp.New(ctx, opts...)
	}
	if err != nil {
		return nil, fmt.Errorf("telemetry: the OTLP metric exporter (%s): %w", cfg.Protocol, err)
	}
	return exp, nil
}
