package cli_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The default binary leaves the Temporal engine out (it costs every start
// its SDK's, gRPC's and protobuf's package initialisation). Each Temporal
// command must refuse with a usage error that names the build command, and
// store nothing.
func TestDefaultBinaryRefusesTemporalCommands(t *testing.T) {
	h := newHarness(t)
	cfg := fmt.Sprintf("[serve]\nroots = [%q]\n", h.workdir)
	if err := os.WriteFile(filepath.Join(h.home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"serve", "--engine", "temporal", "--listen", "127.0.0.1:0"},
		{"run", "--engine", "temporal", "--plan", "-C", h.workdir, "-m", h.script(planScript), "write two files"},
		{"worker", "--task-queue", "q"},
		{"sessions", "approve", "0123abcd", "--mode", "confirm"},
		{"sessions", "refine", "0123abcd", "do more"},
		{"sessions", "cancel", "0123abcd"},
		{"sessions", "answer", "0123abcd", "call_1", "deny", "--reason", "no"},
	} {
		r := h.run("", args...)
		if r.code != 2 || !strings.Contains(r.stderr, "go build -tags temporal ./cmd/harness9") {
			t.Errorf("harness9 %s: exit %d, stderr %q; want exit 2 naming `go build -tags temporal`", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	if r := h.run("", "sessions", "list", "--all", "--json"); r.code != 0 || strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("a refused Temporal command stored a session: exit %d, stdout %q", r.code, r.stdout)
	}
	if r := h.run("", "version"); !strings.Contains(r.stdout, "local engine)") {
		t.Errorf("version = %q, want it to say the binary has the local engine only", r.stdout)
	}
}

// TestDefaultBuildLinksNoTemporal keeps packages that cost every start
// milliseconds of initialisation out of the default build: the Temporal
// SDK and gRPC (import them only from files built with -tags temporal,
// like internal/cli/temporal.go) and goldmark's extension package (its
// linkify regexps; tables come from internal/lib/mdtable).
func TestDefaultBuildLinksNoTemporal(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../cmd/harness9").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	banned := map[string]string{
		"go.temporal.io/":                      "import it only from files built with -tags temporal (internal/cli/temporal.go)",
		"google.golang.org/grpc":               "import it only from files built with -tags temporal (internal/cli/temporal.go)",
		"github.com/harness9/harness9/durable": "import it only from files built with -tags temporal (internal/cli/temporal.go)",
		"github.com/yuin/goldmark/extension":   "its package init compiles link regexps (~3 ms); parse tables with internal/lib/mdtable",
		"go.opentelemetry.io/otel/exporters/":  "the OTLP exporters (protobuf, gRPC) build only with -tags otlp or temporal (internal/otelsetup/otlp.go)",
	}
	for _, dep := range strings.Fields(string(out)) {
		for prefix, fix := range banned {
			if strings.HasPrefix(dep, prefix) {
				t.Errorf("the default build links %s: %s", dep, fix)
			}
		}
	}
	out, err = exec.Command("go", "list", "-tags", "temporal", "-deps", "../../cmd/harness9").Output()
	if err != nil {
		t.Fatalf("go list -tags temporal: %v", err)
	}
	if !strings.Contains(string(out), "github.com/harness9/harness9/durable\n") {
		t.Error("-tags temporal does not link package durable: the Temporal engine is not wired")
	}
	for _, tags := range []string{"temporal", "otlp"} {
		out, err = exec.Command("go", "list", "-tags", tags, "-deps", "../../cmd/harness9").Output()
		if err != nil {
			t.Fatalf("go list -tags %s: %v", tags, err)
		}
		if !strings.Contains(string(out), "go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp\n") {
			t.Errorf("-tags %s does not link the OTLP exporters", tags)
		}
	}
}
