package config

import (
	"strings"
	"testing"
)

// Telemetry is off unless the standard OTEL_* variables or [telemetry]
// turn it on; the environment wins over the file.
func TestTelemetryConfig(t *testing.T) {
	cases := []struct {
		name, file string
		env        map[string]string
		want       TelemetryConfig
		err        string
	}{
		{name: "nothing", want: TelemetryConfig{Protocol: ProtocolHTTP}},
		{name: "endpoint turns both on", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"},
			want: TelemetryConfig{Traces: true, Metrics: true, Protocol: ProtocolHTTP}},
		{name: "a signal's endpoint turns it on", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"},
			want: TelemetryConfig{Traces: true, Protocol: ProtocolHTTP}},
		{name: "exporter variables decide", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_METRICS_EXPORTER": "none",
			"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, want: TelemetryConfig{Traces: true, Protocol: ProtocolHTTP}},
		{name: "prometheus from the environment", env: map[string]string{"OTEL_METRICS_EXPORTER": "otlp,prometheus",
			"OTEL_EXPORTER_PROMETHEUS_PORT": "9999"},
			want: TelemetryConfig{Metrics: true, Prometheus: true, PrometheusListen: "localhost:9999", Protocol: ProtocolHTTP}},
		{name: "file", file: "[telemetry]\nenabled = true\ntraces = false\nprotocol = \"grpc\"\nendpoint = \"http://c:4317\"\nlog_prompts = true\nprometheus = true\n",
			want: TelemetryConfig{Metrics: true, Prometheus: true, Protocol: ProtocolGRPC, Endpoint: "http://c:4317", LogPrompts: true}},
		{name: "environment protocol wins", file: "[telemetry]\nenabled = true\nprotocol = \"grpc\"\n", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
			want: TelemetryConfig{Traces: true, Metrics: true, Protocol: ProtocolHTTP}},
		{name: "disabled wins", file: "[telemetry]\nenabled = true\nprometheus = true\n", env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"},
			want: TelemetryConfig{Protocol: ProtocolHTTP}},
		{name: "json is refused", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, err: "http/json"},
		{name: "unknown exporter", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, err: "zipkin"},
		{name: "bad listen", file: "[telemetry]\nprometheus_listen = \"nope\"\n", err: "prometheus_listen"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := map[string]string{EnvHome: writeConfig(t, c.file)}
			for k, v := range c.env {
				m[k] = v
			}
			cfg, err := Load(Flags{Workdir: t.TempDir()}, env(m))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want one naming %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Telemetry != c.want {
				t.Errorf("got %+v\nwant %+v", cfg.Telemetry, c.want)
			}
			if cfg.Telemetry.On() != (c.want.Traces || c.want.Metrics || c.want.Prometheus) {
				t.Error("On disagrees")
			}
		})
	}
}
