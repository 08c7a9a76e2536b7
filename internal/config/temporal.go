package config

import (
	"fmt"
	"time"
)

// Engines a session can run on (`--engine`, config `engine`).
const (
	EngineLocal    = "local"    // in this process (the default)
	EngineTemporal = "temporal" // as a durable workflow on a Temporal server
)

// Defaults of the [temporal] section.
const (
	DefaultTemporalAddress   = "localhost:7233"
	DefaultTemporalNamespace = "default"
)

// TemporalConfig is the [temporal] section: where durable workflows run.
type TemporalConfig struct {
	Address   string // host:port of the Temporal frontend
	Namespace string
	// TaskQueue is the queue of the worker host that holds the workspace;
	// "" means this host's queue (durable.HostTaskQueue).
	TaskQueue string
	// HeartbeatTimeout is how soon a step on a dead worker is retried on
	// another (0 = durable.DefaultHeartbeatTimeout).
	HeartbeatTimeout time.Duration
	// AskTimeout is how long a permission question waits for its answer
	// before the call is refused (0 = durable.DefaultAskTimeout). The
	// process that starts a workflow (run, serve) sets it.
	AskTimeout time.Duration
}

type temporalFile struct {
	Address          string `toml:"address"`
	Namespace        string `toml:"namespace"`
	TaskQueue        string `toml:"task_queue"`
	HeartbeatTimeout string `toml:"heartbeat_timeout"`
	AskTimeout       string `toml:"ask_timeout"`
}

func defaultTemporal() TemporalConfig {
	return TemporalConfig{Address: DefaultTemporalAddress, Namespace: DefaultTemporalNamespace}
}

// applyTemporal reads `engine` and the [temporal] section.
func (c *Config) applyTemporal(f file, bad func(key, format string, args ...any) error) error {
	if f.Engine != "" {
		if err := CheckEngine(f.Engine); err != nil {
			return bad("engine", "%v", err)
		}
		c.Engine = f.Engine
	}
	t := f.Temporal
	if t.Address != "" {
		c.Temporal.Address = t.Address
	}
	if t.Namespace != "" {
		c.Temporal.Namespace = t.Namespace
	}
	if t.TaskQueue != "" {
		c.Temporal.TaskQueue = t.TaskQueue
	}
	if t.HeartbeatTimeout != "" {
		d, err := time.ParseDuration(t.HeartbeatTimeout)
		if err != nil || d < time.Second {
			return bad("temporal.heartbeat_timeout", "%q is not a duration of at least 1s like \"15s\"", t.HeartbeatTimeout)
		}
		c.Temporal.HeartbeatTimeout = d
	}
	if t.AskTimeout != "" {
		d, err := time.ParseDuration(t.AskTimeout)
		if err != nil || d < time.Second {
			return bad("temporal.ask_timeout", "%q is not a duration of at least 1s like \"24h\"", t.AskTimeout)
		}
		c.Temporal.AskTimeout = d
	}
	return nil
}

// CheckEngine reports whether name is an engine harness9 knows.
func CheckEngine(name string) error {
	if name != EngineLocal && name != EngineTemporal {
		return fmt.Errorf("unknown engine %q (want %s or %s)", name, EngineLocal, EngineTemporal)
	}
	return nil
}
