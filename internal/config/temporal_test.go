package config

import (
	"strings"
	"testing"
	"time"
)

func TestTemporalDrainTimeout(t *testing.T) {
	for _, tc := range []struct {
		text string
		want time.Duration
		bad  bool
	}{{"45s", 45 * time.Second, false}, {"0", 0, false}, {"-1s", 0, true}, {"later", 0, true}} {
		home := writeConfig(t, "[temporal]\ndrain_timeout = \""+tc.text+"\"\n")
		c, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: home}))
		switch {
		case tc.bad && (err == nil || !strings.Contains(err.Error(), "temporal.drain_timeout")):
			t.Errorf("%q: err %v, want one naming temporal.drain_timeout", tc.text, err)
		case !tc.bad && (err != nil || !c.Temporal.DrainSet || c.Temporal.DrainTimeout != tc.want):
			t.Errorf("%q: %+v, %v", tc.text, c.Temporal, err)
		}
	}
	c, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: writeConfig(t, "")}))
	if err != nil || c.Temporal.DrainSet {
		t.Errorf("without drain_timeout: %+v %v", c.Temporal, err)
	}
}

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
