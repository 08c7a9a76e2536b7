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
