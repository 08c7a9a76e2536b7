package mcptool

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

// floodWriter streams n bytes of base64-looking text to w without holding
// them.
func floodWriter(w io.Writer, n int) {
	chunk := []byte(strings.Repeat("QUFB", 16<<10))
	for sent := 0; sent < n; sent += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

// HTTP MCP servers that answer the handshake with 256 MB in one plain JSON
// response, or in one event of an event stream, on both HTTP transports:
// the server is refused, and harness9 does not buffer the flood.
func TestFloodingHTTPServerIsCutOff(t *testing.T) {
	const flood = 256 << 20
	handlers := map[string]http.HandlerFunc{
		"json": func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost {
				http.Error(w, "no stream", http.StatusMethodNotAllowed)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","x":"`)
			floodWriter(w, flood)
		},
		"event": func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost {
				http.Error(w, "no stream", http.StatusMethodNotAllowed)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `event: message`+"\n"+`data: {"jsonrpc":"2.0","id":1,"result":{"x":"`)
			floodWriter(w, flood)
		},
		// An error status with an event-stream type: the SDK reads an
		// error response whole, whatever its type, to find a JSON-RPC
		// error in it.
		"error-event": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"`)
			floodWriter(w, flood)
		},
		"sse": func(w http.ResponseWriter, r *http.Request) {
			// The older transport: the GET stream's first event floods.
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: endpoint\ndata: /messages")
			floodWriter(w, flood)
		},
	}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(h)
			defer srv.Close()
			cfg := ServerConfig{URL: srv.URL, Type: "http"}
			if name == "sse" {
				cfg.Type = "sse"
			}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			m, err := Connect(context.Background(), map[string]ServerConfig{"flood": cfg}, WithTimeout(60*time.Second))
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if st := m.Status(); len(st) != 1 || st[0].Connected {
				t.Errorf("status = %+v, want the flooding server refused", st)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 160<<20 {
				t.Errorf("connecting allocated %d MB for a 256 MB answer", grew>>20)
			}
		})
	}
}
