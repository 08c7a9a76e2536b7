package config

import (
	"fmt"
	"net"
	"strings"
)

// OTLP protocols (OTEL_EXPORTER_OTLP_PROTOCOL, [telemetry] protocol).
const (
	ProtocolHTTP = "http/protobuf" // the default
	ProtocolGRPC = "grpc"
)

// DefaultPrometheusPort is the port of a separate /metrics listener when
// OTEL_EXPORTER_PROMETHEUS_HOST is set without a port.
const DefaultPrometheusPort = "9464"

// TelemetryConfig is the [telemetry] section with the standard OTEL_*
// variables applied (they win over the file). Everything is off unless
// one of them turns it on.
type TelemetryConfig struct {
	// Traces and Metrics are exported over OTLP.
	Traces, Metrics bool
	// Protocol is ProtocolHTTP or ProtocolGRPC.
	Protocol string
	// Endpoint is the file's endpoint, used when no
	// OTEL_EXPORTER_OTLP_*ENDPOINT variable names one ("" = the
	// exporters' default, localhost).
	Endpoint string
	// Prometheus makes `harness9 serve` answer GET /metrics, with the
	// API's tokens on its own address, or without on PrometheusListen.
	Prometheus       bool
	PrometheusListen string
	// LogPrompts records prompts, model output and tool input and output
	// on spans (log_prompts).
	LogPrompts bool
}

// On reports whether any telemetry is recorded.
func (t TelemetryConfig) On() bool { return t.Traces || t.Metrics || t.Prometheus }

type telemetryFile struct {
	Enabled          *bool  `toml:"enabled"`
	Traces           *bool  `toml:"traces"`
	Metrics          *bool  `toml:"metrics"`
	Endpoint         string `toml:"endpoint"`
	Protocol         string `toml:"protocol"`
	Prometheus       bool   `toml:"prometheus"`
	PrometheusListen string `toml:"prometheus_listen"`
	LogPrompts       bool   `toml:"log_prompts"`
}

// applyTelemetry resolves [telemetry] and the OTEL_* variables:
// OTEL_SDK_DISABLED=true turns everything off; OTEL_TRACES_EXPORTER and
// OTEL_METRICS_EXPORTER (otlp, prometheus, none) decide each signal when
// set; otherwise an OTLP endpoint in the environment
// (OTEL_EXPORTER_OTLP_ENDPOINT, or the signal's own) or enabled = true
// turns a signal on, unless traces or metrics = false.
func (c *Config) applyTelemetry(f telemetryFile, getenv func(string) string, bad func(key, format string, args ...any) error) error {
	t := TelemetryConfig{Endpoint: f.Endpoint, LogPrompts: f.LogPrompts, Prometheus: f.Prometheus,
		PrometheusListen: f.PrometheusListen, Protocol: ProtocolHTTP}
	if f.Protocol != "" {
		t.Protocol = f.Protocol
	}
	if p := getenv("OTEL_EXPORTER_OTLP_PROTOCOL"); p != "" {
		t.Protocol = p
	}
	if t.Protocol != ProtocolHTTP && t.Protocol != ProtocolGRPC {
		return bad("telemetry.protocol", "%q is not an OTLP protocol harness9 speaks (%s or %s; OTEL_EXPORTER_OTLP_PROTOCOL sets it too)",
			t.Protocol, ProtocolHTTP, ProtocolGRPC)
	}
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		c.Telemetry = TelemetryConfig{Protocol: t.Protocol}
		return nil
	}
	enabled := f.Enabled != nil && *f.Enabled
	anyEndpoint := getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
	signal := func(exporterVar, endpointVar string, file *bool) (otlp, prometheus bool, err error) {
		if v := getenv(exporterVar); v != "" {
			for _, name := range strings.Split(v, ",") {
				switch strings.TrimSpace(name) {
				case "otlp":
					otlp = true
				case "prometheus":
					prometheus = true
				case "none", "":
				default:
					return false, false, fmt.Errorf("%s=%s: harness9 exports otlp (and, for metrics, prometheus on serve) or none", exporterVar, v)
				}
			}
			return otlp, prometheus, nil
		}
		on := enabled || anyEndpoint || getenv(endpointVar) != ""
		if file != nil && !*file {
			on = false
		}
		return on, false, nil
	}
	var err error
	var promTraces bool
	if t.Traces, promTraces, err = signal("OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", f.Traces); err != nil {
		return err
	}
	if promTraces {
		return fmt.Errorf("OTEL_TRACES_EXPORTER: prometheus exports metrics only; use otlp or none")
	}
	var prom bool
	if t.Metrics, prom, err = signal("OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", f.Metrics); err != nil {
		return err
	}
	t.Prometheus = t.Prometheus || prom
	host, port := getenv("OTEL_EXPORTER_PROMETHEUS_HOST"), getenv("OTEL_EXPORTER_PROMETHEUS_PORT")
	if host != "" || port != "" {
		if host == "" {
			host = "localhost"
		}
		if port == "" {
			port = DefaultPrometheusPort
		}
		t.PrometheusListen = net.JoinHostPort(host, port)
	}
	if t.PrometheusListen != "" {
		if _, _, err := net.SplitHostPort(t.PrometheusListen); err != nil {
			return bad("telemetry.prometheus_listen", "%q is not host:port", t.PrometheusListen)
		}
		t.Prometheus = true
	}
	c.Telemetry = t
	return nil
}
