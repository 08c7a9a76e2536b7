package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/harness9/harness9/llm"
)

// Provider wraps p so that each model call is a chat span (a child of the
// run's invoke_agent span when the call is an agent's) and is counted:
// tokens by type, cost, latency, errors.
func (t *Telemetry) Provider(p llm.Provider) llm.Provider {
	if p == nil {
		return nil
	}
	return &provider{Provider: p, t: t}
}

type provider struct {
	llm.Provider
	t *Telemetry
}

// Stream implements llm.Provider.
func (p *provider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		t := p.t
		name := p.Provider.Name()
		model := []attribute.KeyValue{ProviderName.String(name), RequestModel.String(req.Model)}
		ctx, span := t.tracer.Start(ctx, "chat "+req.Model, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(append(model, OperationName.String("chat"),
				Messages.Int(len(req.Messages)), Tools.Int(len(req.Tools)))...))
		if t.content {
			span.SetAttributes(SystemInstruction.String(req.System), InputMessages.String(messagesJSON(req.Messages)))
		}
		start := time.Now()
		var acc llm.Accumulator
		var first time.Duration
		var failed error
		stopped := false
		for c, err := range p.Provider.Stream(ctx, req) {
			if err != nil {
				failed = err
				yield(c, err)
				break
			}
			if first == 0 && (c.Kind == llm.ChunkText || c.Kind == llm.ChunkReasoning || c.Kind == llm.ChunkToolCall) {
				first = time.Since(start)
			}
			acc.Add(c)
			if !yield(c, nil) {
				stopped = true
				break
			}
		}
		elapsed := time.Since(start)
		resp := acc.Response()
		u := resp.Usage
		span.SetAttributes(InputTokens.Int(u.InputTokens), OutputTokens.Int(u.OutputTokens),
			CacheReadTokens.Int(u.CacheReadTokens), CacheWriteTokens.Int(u.CacheWriteTokens))
		if first > 0 {
			span.SetAttributes(TimeToFirstChunk.Float64(first.Seconds()))
		}
		durAttrs := append(model, OperationName.String("chat"))
		switch {
		case failed != nil:
			kind := errorType(failed)
			span.RecordError(failed)
			span.SetStatus(codes.Error, failed.Error())
			span.SetAttributes(ErrorType.String(kind))
			durAttrs = append(durAttrs, ErrorType.String(kind))
			t.m.modelErrors.Add(ctx, 1, metric.WithAttributes(append(model, ErrorType.String(kind))...))
		case stopped || ctx.Err() != nil:
			span.SetAttributes(ErrorType.String("cancelled"))
		default:
			span.SetAttributes(FinishReasons.StringSlice([]string{string(resp.StopReason)}))
			if t.content {
				span.SetAttributes(OutputMessages.String(messagesJSON([]llm.Message{resp.Message})))
			}
		}
		t.m.duration.Record(ctx, elapsed.Seconds(), metric.WithAttributes(durAttrs...))
		t.countTokens(ctx, name+"/"+req.Model, model, u)
		span.End()
	}
}

// countTokens adds one call's tokens and cost to the metrics.
func (t *Telemetry) countTokens(ctx context.Context, label string, model []attribute.KeyValue, u llm.Usage) {
	for _, k := range []struct {
		kind string
		n    int
		hist bool
	}{{"input", u.InputTokens, true}, {"output", u.OutputTokens, true}, {"cache_read", u.CacheReadTokens, false}, {"cache_write", u.CacheWriteTokens, false}} {
		if k.n == 0 {
			continue
		}
		attrs := metric.WithAttributes(append(model, TokenType.String(k.kind))...)
		t.m.tokens.Add(ctx, int64(k.n), attrs)
		if k.hist {
			t.m.tokenUsage.Record(ctx, int64(k.n), attrs)
		}
	}
	if c, ok := t.cost(label, u); ok && c > 0 {
		t.m.cost.Add(ctx, c, metric.WithAttributes(model...))
	}
}

// errorType is the error.type of a failed model call: the provider's
// HTTP status when it answered, else a kind.
func errorType(err error) string {
	var pe *llm.ProviderError
	switch {
	case errors.As(err, &pe) && pe.Status != 0:
		return fmt.Sprint(pe.Status)
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	return "_OTHER"
}

// messagesJSON is messages as JSON, images left out (their bytes are no
// telemetry).
func messagesJSON(msgs []llm.Message) string {
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		m.Images = nil
		out[i] = m
	}
	b, err := json.Marshal(out)
	if err != nil {
		return ""
	}
	return string(b)
}
