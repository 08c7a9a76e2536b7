package telemetry

import (
	"errors"

	"go.opentelemetry.io/otel/metric"
)

// The metrics harness9 records. Names follow OpenTelemetry's; exported in
// the Prometheus text format (PrometheusHandler) dots become underscores,
// counters end in _total and seconds-valued histograms in _seconds.
const (
	MetricSessions      = "harness9.sessions"                // sessions started
	MetricTurns         = "harness9.turns"                   // model calls of agent runs
	MetricTokens        = "harness9.tokens"                  // tokens by gen_ai.token.type: input, output, cache_read, cache_write
	MetricCost          = "harness9.cost"                    // US dollars, from the configured prices
	MetricToolCalls     = "harness9.tool.calls"              // by tool, decision and outcome
	MetricRefusals      = "harness9.sandbox.refusals"        // calls the mode's gate refused, by tool
	MetricPlans         = "harness9.plans"                   // plan outcomes
	MetricModelErrors   = "harness9.model.errors"            // failed model calls by error.type
	MetricTokenUsage    = "gen_ai.client.token.usage"        // GenAI histogram of tokens per call
	MetricModelDuration = "gen_ai.client.operation.duration" // GenAI histogram of model-call latency
)

// instruments are the metrics' instruments.
type instruments struct {
	sessions, turns, tokens, toolCalls, refusals, plans, modelErrors metric.Int64Counter
	cost                                                             metric.Float64Counter
	tokenUsage                                                       metric.Int64Histogram
	duration                                                         metric.Float64Histogram
}

func (m *instruments) init(meter metric.Meter) error {
	var errs []error
	counter := func(name, unit, desc string) metric.Int64Counter {
		c, err := meter.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	m.sessions = counter(MetricSessions, "{session}", "Sessions started")
	m.turns = counter(MetricTurns, "{call}", "Model calls made by agent runs")
	m.tokens = counter(MetricTokens, "{token}", "Tokens used, by type (input counts cached tokens too)")
	m.toolCalls = counter(MetricToolCalls, "{call}", "Tool calls by tool, permission decision and outcome")
	m.refusals = counter(MetricRefusals, "{call}", "Tool calls the mode's gate or a deny rule refused")
	m.plans = counter(MetricPlans, "{plan}", "Plan outcomes: submitted, approved, refined, cancelled, stalled")
	m.modelErrors = counter(MetricModelErrors, "{call}", "Model calls that failed")
	var err error
	m.cost, err = meter.Float64Counter(MetricCost, metric.WithUnit("USD"), metric.WithDescription("Cost of model calls at the configured prices"))
	errs = append(errs, err)
	m.tokenUsage, err = meter.Int64Histogram(MetricTokenUsage, metric.WithUnit("{token}"),
		metric.WithDescription("Tokens used per model call"),
		metric.WithExplicitBucketBoundaries(1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304))
	errs = append(errs, err)
	m.duration, err = meter.Float64Histogram(MetricModelDuration, metric.WithUnit("s"),
		metric.WithDescription("Duration of model calls"),
		metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92))
	errs = append(errs, err)
	return errors.Join(errs...)
}
