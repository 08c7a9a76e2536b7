// Package telemetry turns what harness9 does into OpenTelemetry traces and
// metrics, following the OpenTelemetry GenAI semantic conventions: a span
// per run of an agent (invoke_agent), per model call (chat) and per tool
// call (execute_tool), planning events on the run's span, and metrics for
// sessions, turns, tokens, cost, tool calls, refusals, plan outcomes and
// model latency.
//
// It is a library package: it reads no environment and starts no exporter.
// A program builds the tracer and meter providers it wants (harness9's CLI
// does so from the OTEL_* variables and config.toml) and hands them to
// New; the Telemetry it returns is an agent.Observer (agent.WithObserver)
// and wraps a provider (Provider) for the chat spans:
//
//	t, _ := telemetry.New(telemetry.WithTracerProvider(tp), telemetry.WithMeterProvider(mp))
//	eng, _ := agent.New(t.Provider(p), agent.WithObserver(t), ...)
//
// Prompts, model output, tool arguments and tool output are recorded only
// with WithContent(true); without it spans carry names, counts, sizes,
// durations and decisions, never what was said or read.
package telemetry

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/harness9/harness9/llm"
)

// ScopeName is the instrumentation scope of harness9's spans and metrics.
const ScopeName = "github.com/harness9/harness9"

// Telemetry records harness9's spans and metrics. Its methods are safe for
// concurrent use.
type Telemetry struct {
	tracer  trace.Tracer
	content bool
	price   func(model string) (llm.Price, bool)
	sandbox string
	m       instruments
}

// Option configures New.
type Option func(*options)

type options struct {
	tp      trace.TracerProvider
	mp      metric.MeterProvider
	content bool
	price   func(model string) (llm.Price, bool)
	sandbox string
}

// WithTracerProvider sets where spans go (default: nowhere).
func WithTracerProvider(tp trace.TracerProvider) Option { return func(o *options) { o.tp = tp } }

// WithMeterProvider sets where metrics go (default: nowhere).
func WithMeterProvider(mp metric.MeterProvider) Option { return func(o *options) { o.mp = mp } }

// WithContent records prompts, the system prompt, model output, tool
// arguments and tool output on spans (gen_ai.input.messages,
// gen_ai.output.messages, gen_ai.system_instructions,
// gen_ai.tool.call.arguments, gen_ai.tool.call.result). Off by default:
// they hold the user's code and whatever the model read.
func WithContent(on bool) Option { return func(o *options) { o.content = on } }

// WithPrices gives model prices ("provider/model" → price) for the cost
// metric; a model without one adds no cost.
func WithPrices(price func(model string) (llm.Price, bool)) Option {
	return func(o *options) { o.price = price }
}

// WithSandbox names how commands are confined ("landlock", "off",
// "unavailable" …), recorded on every execute_tool span next to the
// mode's policy.
func WithSandbox(state string) Option { return func(o *options) { o.sandbox = state } }

// New returns a Telemetry recording to the given providers.
func New(opts ...Option) (*Telemetry, error) {
	o := options{}
	for _, fn := range opts {
		fn(&o)
	}
	if o.tp == nil {
		o.tp = tracenoop.NewTracerProvider()
	}
	if o.mp == nil {
		o.mp = metricnoop.NewMeterProvider()
	}
	t := &Telemetry{
		tracer:  o.tp.Tracer(ScopeName),
		content: o.content,
		price:   o.price,
		sandbox: o.sandbox,
	}
	if err := t.m.init(o.mp.Meter(ScopeName)); err != nil {
		return nil, err
	}
	return t, nil
}

// cost is what u cost with model, and whether its price is known.
func (t *Telemetry) cost(model string, u llm.Usage) (float64, bool) {
	if t.price == nil {
		return 0, false
	}
	p, ok := t.price(model)
	if !ok {
		return 0, false
	}
	return p.Cost(u), true
}

// splitModel splits a "provider/model" label.
func splitModel(label string) (provider, model string) {
	for i := range len(label) {
		if label[i] == '/' {
			return label[:i], label[i+1:]
		}
	}
	return "", label
}

// modelAttrs are the provider and model of a "provider/model" label.
func modelAttrs(label string) []attribute.KeyValue {
	provider, model := splitModel(label)
	return []attribute.KeyValue{ProviderName.String(provider), RequestModel.String(model)}
}
