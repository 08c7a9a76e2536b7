//go:build unix

// Package otelcoltest starts a real OpenTelemetry Collector for tests: the
// OTLP receiver (gRPC and HTTP, on free ports) feeding the file exporter,
// assembled from the Collector's official components in the module under
// collector/ and built once by `go build` (cached by the content of its
// sources). Tests read what it received from the exporter's file.
package otelcoltest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/harness9/harness9/internal/lib/proctest"
)

// Collector is a running collector.
type Collector struct {
	// HTTP and GRPC are the OTLP endpoints ("http://127.0.0.1:PORT").
	HTTP, GRPC string
	// File is where the file exporter writes (OTLP JSON, a line per batch).
	File string
	// Log is the collector's own output.
	Log string
}

// sources are the collector module's files, whose content keys the cache.
var sources = []string{"main.go", "go.mod", "go.sum"}

var (
	buildMu sync.Mutex
	built   string
)

// binary builds the collector (or finds it in the cache) and returns its
// path. Without the go command the test is skipped, or fails in CI.
func binary(t testing.TB) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if built != "" {
		return built
	}
	_, self, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(self), "collector")
	h := sha256.New()
	for _, f := range sources {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatalf("otelcoltest: %v", err)
		}
		h.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	bin := filepath.Join(cache, "harness9-test", "otelcol-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(bin); err == nil {
		built = bin
		return bin
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		msg := "otelcoltest: the go command is needed to build the test collector"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := bin + ".tmp" + strconv.Itoa(os.Getpid())
	cmd := exec.Command(gobin, "build", "-o", tmp, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("otelcoltest: building the collector: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		t.Fatal(err)
	}
	built = bin
	return bin
}

// Start starts a collector for t, stopped when the test ends.
func Start(t testing.TB) *Collector {
	t.Helper()
	bin := binary(t)
	dir := t.TempDir()
	ports := proctest.FreePorts(t, 2)
	c := &Collector{HTTP: "http://127.0.0.1:" + ports[0], GRPC: "http://127.0.0.1:" + ports[1],
		File: filepath.Join(dir, "otlp.jsonl"), Log: filepath.Join(dir, "collector.log")}
	cfg := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%s
      grpc:
        endpoint: 127.0.0.1:%s
exporters:
  file:
    path: %s
    flush_interval: 100ms
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file]
    metrics:
      receivers: [otlp]
      exporters: [file]
`, ports[0], ports[1], c.File)
	cfgPath := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	exited := proctest.Start(t, exec.Command(bin, "--config", "file:"+cfgPath), c.Log)
	deadline := time.Now().Add(30 * time.Second)
	for _, p := range ports {
		for {
			conn, err := net.DialTimeout("tcp", "127.0.0.1:"+p, time.Second)
			if err == nil {
				conn.Close()
				break
			}
			select {
			case <-exited:
				out, _ := os.ReadFile(c.Log)
				t.Fatalf("otelcoltest: the collector exited:\n%s", out)
			default:
			}
			if time.Now().After(deadline) {
				out, _ := os.ReadFile(c.Log)
				t.Fatalf("otelcoltest: the collector did not listen on %s:\n%s", p, out)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return c
}

// Span is one span as the collector received it, with the resource and
// scope it came under.
type Span struct {
	TraceID      string
	SpanID       string
	ParentSpanID string
	Name         string
	Kind         int
	Attributes   map[string]any
	Events       []Event
	Status       struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	Resource map[string]any
	Scope    string
}

// Event is a span event.
type Event struct {
	Name       string
	Attributes map[string]any
}

// Spans returns every span received so far.
func (c *Collector) Spans(t testing.TB) []Span {
	t.Helper()
	var out []Span
	for _, line := range c.lines(t) {
		var doc struct {
			ResourceSpans []struct {
				Resource   struct{ Attributes []kv } `json:"resource"`
				ScopeSpans []struct {
					Scope struct{ Name string } `json:"scope"`
					Spans []struct {
						TraceID      string `json:"traceId"`
						SpanID       string `json:"spanId"`
						ParentSpanID string `json:"parentSpanId"`
						Name         string `json:"name"`
						Kind         int    `json:"kind"`
						Attributes   []kv   `json:"attributes"`
						Events       []struct {
							Name       string `json:"name"`
							Attributes []kv   `json:"attributes"`
						} `json:"events"`
						Status struct {
							Code    int    `json:"code"`
							Message string `json:"message"`
						} `json:"status"`
					} `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal(line, &doc); err != nil {
			t.Fatalf("otelcoltest: %v in %.200s", err, line)
		}
		for _, rs := range doc.ResourceSpans {
			res := attrs(rs.Resource.Attributes)
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					sp := Span{TraceID: s.TraceID, SpanID: s.SpanID, ParentSpanID: s.ParentSpanID, Name: s.Name, Kind: s.Kind,
						Attributes: attrs(s.Attributes), Resource: res, Scope: ss.Scope.Name}
					sp.Status.Code, sp.Status.Message = s.Status.Code, s.Status.Message
					for _, e := range s.Events {
						sp.Events = append(sp.Events, Event{Name: e.Name, Attributes: attrs(e.Attributes)})
					}
					out = append(out, sp)
				}
			}
		}
	}
	return out
}

// Raw returns the exporter's file as written.
func (c *Collector) Raw(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(c.File)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return b
}

// lines are the file's trace documents (metrics documents are left out),
// the whole lines only: the exporter may be writing the last one.
func (c *Collector) lines(t testing.TB) [][]byte {
	var out [][]byte
	raw := c.Raw(t)
	raw = raw[:bytes.LastIndexByte(raw, '\n')+1]
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(`"resourceSpans"`)) {
			out = append(out, append([]byte(nil), sc.Bytes()...))
		}
	}
	return out
}

// kv is an OTLP JSON attribute.
type kv struct {
	Key   string `json:"key"`
	Value struct {
		StringValue *string  `json:"stringValue"`
		IntValue    *string  `json:"intValue"`
		BoolValue   *bool    `json:"boolValue"`
		DoubleValue *float64 `json:"doubleValue"`
		ArrayValue  *struct {
			Values []struct {
				StringValue *string `json:"stringValue"`
			} `json:"values"`
		} `json:"arrayValue"`
	} `json:"value"`
}

// attrs turns OTLP JSON attributes into Go values: strings, int64 (OTLP
// JSON writes them as strings), bools, float64, []string.
func attrs(list []kv) map[string]any {
	m := map[string]any{}
	for _, a := range list {
		v := a.Value
		switch {
		case v.StringValue != nil:
			m[a.Key] = *v.StringValue
		case v.IntValue != nil:
			n, _ := strconv.ParseInt(*v.IntValue, 10, 64)
			m[a.Key] = n
		case v.BoolValue != nil:
			m[a.Key] = *v.BoolValue
		case v.DoubleValue != nil:
			m[a.Key] = *v.DoubleValue
		case v.ArrayValue != nil:
			var ss []string
			for _, e := range v.ArrayValue.Values {
				if e.StringValue != nil {
					ss = append(ss, *e.StringValue)
				}
			}
			m[a.Key] = ss
		}
	}
	return m
}
