package tui

import (
	"context"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// The mouse is not captured unless asked for, so the terminal can select
// and copy the transcript.
func TestMouseCaptureIsOptIn(t *testing.T) {
	if mode := newModel(context.Background(), Options{}).View().MouseMode; mode != tea.MouseModeNone {
		t.Errorf("mouse mode by default = %v, want none", mode)
	}
	if mode := newModel(context.Background(), Options{Mouse: true}).View().MouseMode; mode != tea.MouseModeCellMotion {
		t.Errorf("mouse mode with Mouse = %v, want cell motion", mode)
	}
}
