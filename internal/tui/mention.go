package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// "@" completion. Tab after "@prefix" completes from the workdir's files
// (Options.Files, listed once off the UI loop) and from any other source a
// front end adds (Options.Mentions: an MCP server's resources, say), each
// asked off the UI loop. One candidate is filled in; several fill their
// common prefix and are listed in the hint.

// maxMentions is how many candidates a Tab offers.
const maxMentions = 8

// filesLoaded carries the workdir's file list for @ completion.
type filesLoaded struct {
	files []string
	err   error
}

// mentionsMsg carries the candidates for prefix from every source.
type mentionsMsg struct {
	prefix     string
	candidates []string
}

// loadFiles lists the workdir's files off the UI loop; the completion runs
// when they arrive.
func (m *model) loadFiles() tea.Cmd {
	list := m.opts.Files
	return func() tea.Msg {
		files, err := list()
		return filesLoaded{files, err}
	}
}

// mentionTab is Tab on an "@" mention.
func (m *model) mentionTab() tea.Cmd {
	prefix, _ := m.in.mention()
	if m.opts.Files != nil && m.files == nil {
		m.hint = "listing files…"
		return m.loadFiles()
	}
	files := matchFiles(m.files, prefix, maxMentions)
	sources := m.opts.Mentions
	if len(sources) == 0 {
		m.applyMention(prefix, files)
		return nil
	}
	return func() tea.Msg {
		cands := files
		for _, src := range sources {
			cands = append(cands, src(prefix)...)
		}
		return mentionsMsg{prefix: prefix, candidates: cands}
	}
}

func (m *model) onFilesLoaded(msg filesLoaded) tea.Cmd {
	if msg.err != nil {
		m.hint = "cannot list the files: " + msg.err.Error()
		return nil
	}
	m.files, m.hint = msg.files, ""
	if m.files == nil {
		m.files = []string{}
	}
	if _, ok := m.in.mention(); ok {
		return m.mentionTab()
	}
	return nil
}

// onMentions completes the mention, if it is still the one being typed.
func (m *model) onMentions(msg mentionsMsg) {
	if prefix, ok := m.in.mention(); ok && prefix == msg.prefix {
		m.applyMention(prefix, msg.candidates)
	}
}

// applyMention fills in one candidate, or the common prefix of several
// (listed in the hint).
func (m *model) applyMention(prefix string, matches []string) {
	if len(matches) > maxMentions {
		matches = matches[:maxMentions]
	}
	switch len(matches) {
	case 0:
		m.hint = "nothing matches @" + prefix
	case 1:
		m.in.replaceMention(matches[0] + " ")
	default:
		m.in.replaceMention(commonPrefix(matches))
		m.hint = strings.Join(matches, "  ")
	}
	m.layout()
}

// matchFiles returns up to n files whose path starts with prefix, then
// those whose base name does, then those that contain it.
func matchFiles(files []string, prefix string, n int) []string {
	var starts, base, within []string
	lp := strings.ToLower(prefix)
	for _, f := range files {
		lf := strings.ToLower(f)
		switch {
		case strings.HasPrefix(lf, lp):
			starts = append(starts, f)
		case strings.HasPrefix(lf[strings.LastIndex(lf, "/")+1:], lp):
			base = append(base, f)
		case strings.Contains(lf, lp):
			within = append(within, f)
		}
	}
	out := append(append(starts, base...), within...)
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// commonPrefix is the longest prefix all of ss share.
func commonPrefix(ss []string) string {
	p := ss[0]
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}
