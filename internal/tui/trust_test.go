package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func trustKeys(keys ...string) *trustModel {
	m := &trustModel{q: TrustQuestion{Workdir: "/w", Items: []string{"MCP server x: sh -c 'touch /tmp/p'"}}, cursor: 1, choice: TrustQuit, armed: true}
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case "up":
			msg = tea.KeyPressMsg{Code: tea.KeyUp}
		case "ctrl+c":
			msg = tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
		default:
			msg = tea.KeyPressMsg{Code: rune(k[0]), Text: k}
		}
		if _, cmd := m.Update(msg); cmd != nil {
			return m
		}
	}
	return m
}

// Only digits, arrows and Enter act; the default is the safe answer.
func TestTrustQuestionKeys(t *testing.T) {
	cases := []struct {
		keys []string
		want TrustChoice
	}{
		{[]string{"enter"}, TrustDecline},
		{[]string{"y", "e", "s", "enter"}, TrustDecline},
		{[]string{"esc"}, TrustDecline},
		{[]string{"ctrl+c"}, TrustQuit},
		{[]string{"1", "enter"}, TrustAccept},
		{[]string{"up", "enter"}, TrustAccept},
		{[]string{"3", "enter"}, TrustQuit},
	}
	for _, c := range cases {
		if got := trustKeys(c.keys...).choice; got != c.want {
			t.Errorf("%v: choice %v, want %v", c.keys, got, c.want)
		}
	}
}

// The question fits small screens: the options stay visible however many
// items there are, and every item's command is shown whole when it fits.
func TestTrustQuestionFits(t *testing.T) {
	m := &trustModel{q: TrustQuestion{Workdir: "/w"}, cursor: 1, width: 60, height: 20}
	for i := 0; i < 40; i++ {
		m.q.Items = append(m.q.Items, "MCP server s: npx -y some-very-long-package-name@1.2.3 --flag value")
	}
	out := m.render()
	if n := strings.Count(out, "\n") + 1; n > 20 {
		t.Errorf("%d lines on a 20-line screen", n)
	}
	for _, o := range []string{"[1]", "[2]", "[3]"} {
		if !strings.Contains(out, o) {
			t.Errorf("option %s is not visible:\n%s", o, out)
		}
	}
}
