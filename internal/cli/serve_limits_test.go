package cli

import (
	"testing"

	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/service"
)

// [serve]'s limits replace the server's defaults key by key; 0 is kept (no
// limit), a missing key leaves the default.
func TestServeLimitsFromConfig(t *testing.T) {
	zero, three, rate := 0, 3, 2.5
	got := serveLimits(config.ServeConfig{MaxRuns: &three, MaxRunsPerToken: &zero, Rate: &rate})
	want := service.DefaultLimits()
	want.MaxRuns, want.MaxRunsPerToken, want.Rate = 3, 0, 2.5
	if got != want {
		t.Fatalf("limits %+v, want %+v", got, want)
	}
	if got := serveLimits(config.ServeConfig{}); got != service.DefaultLimits() {
		t.Fatalf("without keys: %+v", got)
	}
}
