package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// pager shows a long text whole on the full screen: a tool call's output
// (Ctrl+O), a sub-agent's calls, the whole transcript (Ctrl+T). It scrolls,
// searches (/, n, N) and jumps (g, G); the text can change while it is
// open (a command still running), and at the end it follows.
type pager struct {
	src pagerSource
	// text and rows are the source's text and its lines wrapped for width.
	text  string
	title string
	rows  []string
	width int
	top   int
	// follow keeps the end in view as the text grows.
	follow bool

	query   string // the last search
	editing bool   // the query is being typed
	input   string
	matches []int // rows holding the query
	match   int   // index into matches of the current one, -1 for none
	status  string
}

// pagerSource is what a pager shows; it is asked again at every frame, so
// a running call's output is shown as it grows. step moves to the
// previous or next item (another tool call), if there is one.
type pagerSource interface {
	content() (title, text string)
	step(delta int) bool
	// atEnd says whether the pager opens at the end (a failed call: the
	// error is there) rather than at the top.
	atEnd() bool
}

func newPager(src pagerSource) *pager {
	p := &pager{src: src, match: -1}
	p.follow = src.atEnd()
	return p
}

// pagerRows is the number of text rows for a screen height (a title and a
// status line take two).
func pagerRows(height int) int { return max(height-2, 1) }

// refresh re-reads the source and re-wraps it when it or the width changed.
func (p *pager) refresh(width, height int) {
	title, text := p.src.content()
	if text == p.text && width == p.width && p.rows != nil {
		p.title = title
		return
	}
	p.title, p.text, p.width = title, text, width
	p.rows = wrapPlain(text, width)
	p.find()
	if p.follow {
		p.top = len(p.rows) - pagerRows(height)
	}
	p.clamp(height)
}

// wrapPlain splits text into rows of at most width cells, every character
// kept (long lines continue on the next rows).
func wrapPlain(text string, width int) []string {
	var rows []string
	for _, l := range strings.Split(strings.TrimRight(expandTabs(ansi.Strip(text)), "\n"), "\n") {
		rows = append(rows, strings.Split(ansi.Hardwrap(l, max(width, 10), true), "\n")...)
	}
	return rows
}

func (p *pager) clamp(height int) {
	p.top = max(0, min(p.top, len(p.rows)-pagerRows(height)))
	p.follow = p.top >= len(p.rows)-pagerRows(height)
}

// find lists the rows that hold the query (case-insensitive).
func (p *pager) find() {
	p.matches = nil
	if p.query == "" {
		p.match = -1
		return
	}
	q := strings.ToLower(p.query)
	for i, r := range p.rows {
		if strings.Contains(strings.ToLower(r), q) {
			p.matches = append(p.matches, i)
		}
	}
	if p.match >= len(p.matches) {
		p.match = len(p.matches) - 1
	}
}

// jump shows the next (dir 1) or previous (dir -1) match from the top row.
func (p *pager) jump(dir, height int) {
	if len(p.matches) == 0 {
		p.status = "not found: " + p.query
		return
	}
	from := p.top
	if p.match >= 0 && p.match < len(p.matches) {
		from = p.matches[p.match]
	}
	next := -1
	if dir > 0 {
		for i, r := range p.matches {
			if r > from || (p.match < 0 && r >= from) {
				next = i
				break
			}
		}
		if next < 0 {
			next, p.status = 0, "search wrapped to the top"
		}
	} else {
		for i := len(p.matches) - 1; i >= 0; i-- {
			if p.matches[i] < from {
				next = i
				break
			}
		}
		if next < 0 {
			next, p.status = len(p.matches)-1, "search wrapped to the end"
		}
	}
	p.match = next
	// The match goes a third down the screen, with context above it.
	p.top = p.matches[next] - pagerRows(height)/3
	p.clamp(height)
}

// key handles a key; it reports whether the pager closed.
func (p *pager) key(k tea.KeyPressMsg, width, height int) (closed bool) {
	p.refresh(width, height)
	key := k.String()
	page := max(pagerRows(height)-1, 1)
	p.status = ""
	if p.editing {
		switch key {
		case "enter":
			p.editing, p.query, p.match = false, p.input, -1
			p.find()
			p.jump(1, height)
		case "esc", "ctrl+c":
			p.editing = false
		case "backspace":
			if r := []rune(p.input); len(r) > 0 {
				p.input = string(r[:len(r)-1])
			}
		default:
			if isText(k) {
				p.input += k.Text
			}
		}
		return false
	}
	switch key {
	case "q", "esc", "ctrl+o", "ctrl+t", "ctrl+c":
		return true
	case "up", "k":
		p.top--
	case "down", "j", "enter":
		p.top++
	case "pgup", "b", "ctrl+b":
		p.top -= page
	case "pgdown", "space", " ", "f", "ctrl+f":
		p.top += page
	case "home", "g":
		p.top = 0
	case "end", "G", "shift+g":
		p.top = len(p.rows)
	case "/":
		p.editing, p.input = true, ""
	case "n":
		p.jump(1, height)
	case "N", "shift+n":
		p.jump(-1, height)
	case "left", "h", "[":
		p.move(-1)
	case "right", "l", "]":
		p.move(1)
	}
	p.clamp(height)
	return false
}

// move shows the previous or next item of the source.
func (p *pager) move(delta int) {
	if !p.src.step(delta) {
		if delta < 0 {
			p.status = "this is the first one"
		} else {
			p.status = "this is the last one"
		}
		return
	}
	p.rows, p.top, p.match = nil, 0, -1
	p.follow = p.src.atEnd()
}

var (
	pagerBar   = lipgloss.NewStyle().Background(colBar).Foreground(colAccent)
	pagerMatch = lipgloss.NewStyle().Reverse(true)
)

// view draws the pager on the whole screen.
func (p *pager) view(width, height int) string {
	p.refresh(width, height)
	rows := pagerRows(height)
	out := make([]string, 0, height)
	title := ansi.Truncate(" "+p.title, width, "…")
	out = append(out, pagerBar.Bold(true).Render(title+strings.Repeat(" ", max(width-ansi.StringWidth(title), 0))))
	cur := -1
	if p.match >= 0 && p.match < len(p.matches) {
		cur = p.matches[p.match]
	}
	for i := p.top; i < p.top+rows; i++ {
		if i >= len(p.rows) {
			out = append(out, dimStyle.Render("~"))
			continue
		}
		out = append(out, p.highlight(p.rows[i], i == cur))
	}
	out = append(out, p.footer(width, rows))
	return strings.Join(out, "\n")
}

// highlight marks the query in a row; the current match's row is marked
// whole as well.
func (p *pager) highlight(row string, current bool) string {
	if p.query == "" {
		return row
	}
	lr, lq := strings.ToLower(row), strings.ToLower(p.query)
	if !strings.Contains(lr, lq) || len(lr) != len(row) {
		return row
	}
	var b strings.Builder
	for {
		i := strings.Index(lr, lq)
		if i < 0 {
			b.WriteString(row)
			break
		}
		b.WriteString(row[:i])
		b.WriteString(pagerMatch.Render(row[i : i+len(lq)]))
		row, lr = row[i+len(lq):], lr[i+len(lq):]
	}
	if current {
		return warnStyle.Render("▸") + b.String()
	}
	return b.String()
}

func (p *pager) footer(width, rows int) string {
	if p.editing {
		return ansi.Truncate(pagerBar.Render("/"+p.input+"▏")+dimStyle.Render("  Enter searches · Esc cancels"), width, "…")
	}
	last := min(p.top+rows, len(p.rows))
	pos := fmt.Sprintf(" lines %d–%d of %d", min(p.top+1, last), last, len(p.rows))
	if p.query != "" && len(p.matches) > 0 {
		pos += fmt.Sprintf(" · match %d/%d", p.match+1, len(p.matches))
	}
	if p.status != "" {
		pos += " · " + p.status
	}
	keys := " · ↑/↓ PgUp/PgDn · g/G top/end · / search · n/N · ←/→ previous/next · q closes"
	return ansi.Truncate(pagerBar.Render(pos)+dimStyle.Render(keys), width, "…")
}
