package cli

import (
	"bufio"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/harness9/harness9/internal/termtext"
	"github.com/harness9/harness9/session"
)

// sessionColumns are the table's headings; every column but the last
// (the title, which is not padded) is as wide as its widest cell plus
// columnGap spaces, the layout text/tabwriter gave the table before.
var sessionColumns = [...]string{"ID", "UPDATED", "MODEL", "MSGS", "TASKS", "STATUS", "TITLE"}

const columnGap = 2

// writeSessionTable prints rows as `sessions list` shows them. It measures
// the columns in one pass over rows and writes them in a second, through
// one buffer: text/tabwriter kept every cell of every line until its
// flush, about 600 KB of fresh memory for 1000 sessions, which on this
// kind of VM costs more in page faults than the listing itself. Titles
// and model names are the model's and the user's text: each cell is
// cleaned (termtext.Clean) before it is measured, so its control
// sequences are shown, not obeyed, and the columns stay aligned.
func writeSessionTable(w io.Writer, rows []session.Summary) error {
	var width [len(sessionColumns) - 1]int
	for i := range width {
		width[i] = len(sessionColumns[i])
	}
	var buf []byte // one row's cells, reused
	for i := range rows {
		buf = sessionCells(buf[:0], &rows[i], func(col int, cell []byte) {
			width[col] = max(width[col], utf8.RuneCount(cell))
		})
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	for i, h := range sessionColumns[:len(width)] {
		writePadded(bw, h, width[i])
	}
	bw.WriteString(sessionColumns[len(width)] + "\n")
	for i := range rows {
		buf = sessionCells(buf[:0], &rows[i], func(col int, cell []byte) {
			bw.Write(cell)
			pad(bw, width[col]-utf8.RuneCount(cell))
		})
		bw.WriteString(termtext.Clean(listTitle(rows[i].Session)))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// sessionCells appends the aligned cells of r to buf, each cleaned, and
// calls cell with each one's column and bytes. It returns buf for reuse.
func sessionCells(buf []byte, r *session.Summary, cell func(col int, b []byte)) []byte {
	var ends [len(sessionColumns) - 1]int
	buf = append(buf, termtext.Clean(r.ID)...)
	ends[0] = len(buf)
	buf = r.Updated.Local().AppendFormat(buf, time.DateTime)
	ends[1] = len(buf)
	buf = append(buf, termtext.Clean(r.Model)...)
	ends[2] = len(buf)
	buf = strconv.AppendInt(buf, int64(r.MessageCount), 10)
	ends[3] = len(buf)
	buf = strconv.AppendInt(buf, int64(r.TodosDone), 10)
	buf = append(buf, '/')
	buf = strconv.AppendInt(buf, int64(r.TodosTotal), 10)
	ends[4] = len(buf)
	buf = append(buf, termtext.Clean(string(r.Status))...)
	ends[5] = len(buf)
	start := 0
	for col, end := range ends {
		cell(col, buf[start:end])
		start = end
	}
	return buf
}

func writePadded(w *bufio.Writer, s string, width int) {
	w.WriteString(s)
	pad(w, width-utf8.RuneCountInString(s))
}

// pad writes the spaces that fill a cell short of its column's width by
// short runes, and the gap after it.
func pad(w *bufio.Writer, short int) {
	for range short + columnGap {
		w.WriteByte(' ')
	}
}
