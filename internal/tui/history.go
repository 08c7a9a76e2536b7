package tui

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"

	tea "charm.land/bubbletea/v2"
)

// maxHistory is how many entries of the input history are loaded.
const maxHistory = 500

// loadHistory reads the input history file: one JSON string per line, so
// a multi-line prompt stays one entry. A missing or unreadable file is an
// empty history: history is a convenience, never a reason to fail.
func loadHistory(path string) tea.Cmd {
	if path == "" {
		return nil
	}
	return func() tea.Msg {
		f, err := os.Open(path)
		if err != nil {
			return historyMsg{}
		}
		defer f.Close()
		var entries []string
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			var s string
			if json.Unmarshal(sc.Bytes(), &s) == nil && s != "" {
				entries = append(entries, s)
			}
		}
		if len(entries) > maxHistory {
			entries = entries[len(entries)-maxHistory:]
		}
		return historyMsg{entries: entries}
	}
}

// appendHistory adds one entry to the history file (created 0600: prompts
// can hold anything the user typed).
func appendHistory(path, entry string) tea.Cmd {
	if path == "" || entry == "" {
		return nil
	}
	return func() tea.Msg {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil
		}
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return nil
		}
		defer f.Close()
		line, _ := json.Marshal(entry)
		_, _ = f.Write(append(line, '\n'))
		return nil
	}
}
