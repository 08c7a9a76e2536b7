package telemetry

import (
	"bufio"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// PrometheusHandler serves the metrics reader collects (give the meter
// provider a sdkmetric.NewManualReader next to its exporters) in the
// Prometheus text exposition format, for a scraper's GET /metrics.
//
// It writes the format itself rather than through the OpenTelemetry
// Prometheus exporter: that exporter's client library registers the Go and
// process collectors when the program starts, a cost every harness9
// command would pay for a page only `serve` offers.
func PrometheusHandler(reader sdkmetric.Reader) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(r.Context(), &rm); err != nil {
			http.Error(w, "collecting metrics: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		bw := bufio.NewWriter(w)
		writePrometheus(bw, rm)
		_ = bw.Flush()
	})
}

// writePrometheus writes rm's sums, gauges and histograms; a name met
// twice (two scopes) gets its HELP and TYPE once.
func writePrometheus(w *bufio.Writer, rm metricdata.ResourceMetrics) {
	seen := map[string]bool{}
	header := func(name, typ, help string) {
		if seen[name] {
			return
		}
		seen[name] = true
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, escapeHelp(help), name, typ)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				writeSum(w, header, m, d.IsMonotonic, d.DataPoints)
			case metricdata.Sum[float64]:
				writeSum(w, header, m, d.IsMonotonic, d.DataPoints)
			case metricdata.Gauge[int64]:
				writeSum(w, header, m, false, d.DataPoints)
			case metricdata.Gauge[float64]:
				writeSum(w, header, m, false, d.DataPoints)
			case metricdata.Histogram[int64]:
				writeHistogram(w, header, m, d.DataPoints)
			case metricdata.Histogram[float64]:
				writeHistogram(w, header, m, d.DataPoints)
			}
		}
	}
}

func writeSum[N int64 | float64](w *bufio.Writer, header func(name, typ, help string), m metricdata.Metrics, counter bool, points []metricdata.DataPoint[N]) {
	name, typ := promName(m.Name, m.Unit), "gauge"
	if counter {
		name, typ = name+"_total", "counter"
	}
	header(name, typ, m.Description)
	for _, p := range points {
		fmt.Fprintf(w, "%s%s %s\n", name, labels(p.Attributes, ""), formatFloat(float64(p.Value)))
	}
}

func writeHistogram[N int64 | float64](w *bufio.Writer, header func(name, typ, help string), m metricdata.Metrics, points []metricdata.HistogramDataPoint[N]) {
	name := promName(m.Name, m.Unit)
	header(name, "histogram", m.Description)
	for _, p := range points {
		var cum uint64
		for i, b := range p.Bounds {
			cum += p.BucketCounts[i]
			fmt.Fprintf(w, "%s_bucket%s %d\n", name, labels(p.Attributes, formatFloat(b)), cum)
		}
		fmt.Fprintf(w, "%s_bucket%s %d\n", name, labels(p.Attributes, "+Inf"), p.Count)
		fmt.Fprintf(w, "%s_sum%s %s\n", name, labels(p.Attributes, ""), formatFloat(float64(p.Sum)))
		fmt.Fprintf(w, "%s_count%s %d\n", name, labels(p.Attributes, ""), p.Count)
	}
}

// promUnits are the unit suffixes Prometheus names carry; units in braces
// ({token}, {call}) are annotations and add none.
var promUnits = map[string]string{"s": "seconds", "ms": "milliseconds", "By": "bytes", "USD": "usd", "1": "ratio"}

// promName is an OpenTelemetry metric name as Prometheus spells it: dots
// and other characters outside [a-zA-Z0-9_:] become underscores, and the
// unit is appended.
func promName(name, unit string) string {
	n := sanitize(name)
	if suffix, ok := promUnits[unit]; ok && !strings.HasSuffix(n, "_"+suffix) {
		n += "_" + suffix
	}
	return n
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		ok := c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9')
		if !ok {
			b[i] = '_'
		}
	}
	return string(b)
}

// labels is a point's attribute set as {k="v",…}, with le when given.
func labels(set attribute.Set, le string) string {
	if set.Len() == 0 && le == "" {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	first := true
	add := func(k, v string) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(sanitize(k))
		b.WriteString(`="`)
		b.WriteString(escapeValue(v))
		b.WriteByte('"')
	}
	for it := set.Iter(); it.Next(); {
		kv := it.Attribute()
		add(string(kv.Key), kv.Value.String())
	}
	if le != "" {
		add("le", le)
	}
	b.WriteByte('}')
	return b.String()
}

func escapeValue(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

func escapeHelp(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(s)
}

func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case math.IsNaN(f):
		return "NaN"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
