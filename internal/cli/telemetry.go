package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/internal/otelsetup"
)

// telemetryShutdownGrace bounds how long a command waits, as it exits, for
// its last spans and metrics to be exported.
const telemetryShutdownGrace = 5 * time.Second

// telemetry returns the process's telemetry for c (nil while it is off;
// see internal/otelsetup), built the first time a command needs it.
func telemetry(ctx context.Context, e *env, c *config.Config, sandbox string) (*otelsetup.Setup, error) {
	cfg, why := otelsetup.Available(c.Telemetry)
	if why != "" && !e.warnedTelemetry {
		e.warnedTelemetry = true
		fmt.Fprintf(e.stderr, "harness9: warning: %s\n", why)
	}
	s, err := otelsetup.Get(ctx, cfg, otelsetup.Options{Version: Version, Command: e.command,
		Prices: c.PriceOf, Sandbox: sandbox})
	if err != nil {
		return nil, withCode(ExitUsage, fmt.Errorf("%w; fix [telemetry] in %s or the OTEL_* variables", err, c.File))
	}
	return s, nil
}

// flushTelemetry exports what is left before the process exits.
func flushTelemetry(e *env) {
	ctx, cancel := context.WithTimeout(context.Background(), telemetryShutdownGrace)
	defer cancel()
	if err := otelsetup.Shutdown(ctx); err != nil {
		fmt.Fprintf(e.stderr, "harness9: warning: telemetry was not all exported: %v\n", err)
	}
}

// logFlags are --log-level and --log-file.
type logFlags struct {
	level string
	file  string
}

// newLogger builds the log every command writes its diagnostics to:
// warnings and errors on stderr by default; --log-level and --log-file
// change that. Records logged with a context carry its trace and span ids.
func newLogger(e *env, f logFlags) (*slog.Logger, io.Closer, error) {
	level := slog.LevelWarn
	if f.level != "" {
		if err := level.UnmarshalText([]byte(f.level)); err != nil {
			return nil, nil, usageErr("--log-level must be debug, info, warn or error, not %q", f.level)
		}
	}
	var w io.Writer = e.stderr
	var closer io.Closer = io.NopCloser(nil)
	e.logLevel, e.logToTerminal = level, f.file == ""
	if f.file != "" {
		file, err := os.OpenFile(f.file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, usageErr("--log-file: %v", err)
		}
		w, closer = file, file
	}
	h := slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})
	return slog.New(otelsetup.LogHandler(h)), closer, nil
}

// logger is the command's log (newLogger's), or the default one for
// commands that run before the flags are read.
func (e *env) log() *slog.Logger {
	if e.logger == nil {
		e.logger = slog.New(otelsetup.LogHandler(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	return e.logger
}

// commandName is the command path without its arguments ("harness9
// serve"), which telemetry records: the arguments can hold the prompt.
func commandName(path string) string { return strings.TrimSpace(path) }
