package tui

import (
	"context"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// The mouse is not captured unless asked for (in full-screen mode; inline
// the terminal scrolls its own scrollback), so the terminal can select and
// copy the transcript.
func TestMouseCaptureIsOptIn(t *testing.T) {
	if mode := newModel(context.Background(), Options{}).View().MouseMode; mode != tea.MouseModeNone {
		t.Errorf("mouse mode by default = %v, want none", mode)
	}
	if mode := newModel(context.Background(), Options{Mouse: true, Fullscreen: true}).View().MouseMode; mode != tea.MouseModeCellMotion {
		t.Errorf("mouse mode with Mouse = %v, want cell motion", mode)
	}
}

// Inline, the program never captures the mouse: the wheel scrolls the
// terminal's scrollback, where the conversation is.
func TestInlineNeverCapturesTheMouse(t *testing.T) {
	v := newModel(context.Background(), Options{Mouse: true}).View()
	if v.MouseMode != tea.MouseModeNone || v.AltScreen {
		t.Errorf("inline view: mouse %v, alt screen %v", v.MouseMode, v.AltScreen)
	}
}
