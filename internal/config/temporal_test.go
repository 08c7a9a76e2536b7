package config

import (
	"strings"
	"testing"
	"time"
)

// [temporal] ask_timeout: how long a durable workflow's permission
// question waits; unset leaves durable's default (0 here).
func TestTemporalAskTimeout(t *testing.T) {
	c, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: writeConfig(t, "[temporal]\nask_timeout = \"90m\"\n")}))
	if err != nil || c.Temporal.AskTimeout != 90*time.Minute {
		t.Fatalf("ask_timeout = %v (%v), want 90m", c.Temporal.AskTimeout, err)
	}
	if c, err = Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: t.TempDir()})); err != nil || c.Temporal.AskTimeout != 0 {
		t.Fatalf("unset: %v (%v)", c.Temporal.AskTimeout, err)
	}
	for _, bad := range []string{"soon", "10ms", "-1h"} {
		_, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: writeConfig(t, "[temporal]\nask_timeout = \""+bad+"\"\n")}))
		if err == nil || !strings.Contains(err.Error(), "temporal.ask_timeout") {
			t.Errorf("ask_timeout %q: %v", bad, err)
		}
	}
}
