// Package mdtable recognises a GitHub-flavoured markdown table in the
// lines of a paragraph. harness9 parses markdown with goldmark's CommonMark
// core only: goldmark's extension package (tables, task lists, linkify)
// compiles link regexps at package initialisation, about 3 ms of every
// harness9 start whether or not anything is rendered. The TUI and the
// plan-review web page both draw tables from the paragraph they parse as
// in CommonMark, with this one rule.
package mdtable

import "strings"

// Align is a column's alignment from the delimiter row.
type Align int

// Alignments: `---`, `:--`, `--:`, `:-:`.
const (
	AlignNone Align = iota
	AlignLeft
	AlignRight
	AlignCenter
)

// Table is a parsed table: Rows[0] is the header.
type Table struct {
	Rows  [][]string
	Align []Align // one per column of the delimiter row
}

// Parse reads a table from lines (a header row with a pipe, a delimiter
// row of dashes with optional colons, then body rows), or reports false
// when lines are not one.
func Parse(lines []string) (Table, bool) {
	if len(lines) < 2 || !strings.Contains(lines[0], "|") {
		return Table{}, false
	}
	delim := Cells(lines[1])
	if len(delim) == 0 {
		return Table{}, false
	}
	t := Table{Align: make([]Align, len(delim))}
	for i, d := range delim {
		left, right := strings.HasPrefix(d, ":"), strings.HasSuffix(d, ":")
		d = strings.Trim(d, ":")
		if d == "" || strings.Trim(d, "-") != "" {
			return Table{}, false
		}
		switch {
		case left && right:
			t.Align[i] = AlignCenter
		case left:
			t.Align[i] = AlignLeft
		case right:
			t.Align[i] = AlignRight
		}
	}
	t.Rows = [][]string{Cells(lines[0])}
	for _, l := range lines[2:] {
		t.Rows = append(t.Rows, Cells(l))
	}
	return t, true
}

// Cells splits a table row at its pipes (not at escaped ones), without the
// outer pipes, each cell trimmed.
func Cells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	if strings.HasSuffix(line, "|") && !strings.HasSuffix(line, "\\|") {
		line = line[:len(line)-1]
	}
	var out []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case line[i] == '|':
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(out, strings.TrimSpace(cur.String()))
}
