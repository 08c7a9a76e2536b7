//go:build !unix

package builtin

import (
	"io"
	"os"
)

// openNoBlock: no named pipes to guard against here.
const openNoBlock = 0

// readSearchable reads the file at path into buf (grown as needed) and
// returns its content and the buffer to reuse. ok is false for files that
// cannot be read or are too large.
func readSearchable(path string, buf []byte) (data, newBuf []byte, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, buf, false
	}
	defer f.Close()
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if cap(buf) >= searchMaxFileSize {
				return nil, buf, false
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, buf, true
		}
		if err != nil {
			return buf, buf, len(buf) > 0
		}
	}
}
