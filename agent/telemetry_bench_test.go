package agent_test

import (
	"context"
	"fmt"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/telemetry"
)

// discard is a span exporter that drops what it is given: the benchmark
// counts the SDK's work (spans, attributes, batching), not a network.
type discard struct{}

func (discard) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                             { return nil }

// BenchmarkTurnAtTelemetry is BenchmarkTurnAt with telemetry on: the
// OpenTelemetry SDK records every span (batched to an exporter that drops
// them) and every metric (read by nobody), as `harness9` does with
// OTEL_EXPORTER_OTLP_ENDPOINT set. Its ns/turn against BenchmarkTurnAt's
// is what telemetry costs a turn.
func BenchmarkTurnAtTelemetry(b *testing.B) {
	for _, n := range []int{50, 2000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discard{}))
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
			defer tp.Shutdown(context.Background())
			tel, err := telemetry.New(telemetry.WithTracerProvider(tp), telemetry.WithMeterProvider(mp),
				telemetry.WithPrices(func(string) (llm.Price, bool) { return llm.Price{Input: 2, Output: 8}, true }))
			if err != nil {
				b.Fatal(err)
			}
			benchTurnAt(b, n, func(p llm.Provider) (llm.Provider, []agent.Option) {
				return tel.Provider(p), []agent.Option{agent.WithObserver(tel)}
			})
		})
	}
}
