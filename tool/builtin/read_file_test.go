package builtin

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReadFile(t *testing.T) {
	ws, root := newWS(t)
	files(t, root, map[string]string{
		"a.txt":   "one\ntwo\r\nthree",
		"empty":   "",
		"bin.dat": "PK\x03\x04\x00\x00binary",
		"dir/x":   "x",
	})
	rf := NewReadFile(ws)

	if got, want := ok(t, rf, ReadFileInput{Path: "a.txt"}), "     1\tone\n     2\ttwo\n     3\tthree\n"; got != want {
		t.Errorf("read a.txt = %q, want %q", got, want)
	}
	if got := ok(t, rf, ReadFileInput{Path: filepath.Join(root, "a.txt"), Offset: 2, Limit: 1}); !strings.HasPrefix(got, "     2\ttwo\n") ||
		!strings.Contains(got, "showing lines 2-2 of 3; read more with offset=3") {
		t.Errorf("read with offset/limit = %q", got)
	}
	if got := ok(t, rf, ReadFileInput{Path: "empty"}); !strings.Contains(got, "empty") {
		t.Errorf("read empty file = %q", got)
	}
	fails(t, rf, ReadFileInput{Path: "bin.dat"}, "binary")
	fails(t, rf, ReadFileInput{Path: "dir"}, "directory", "list_files")
	fails(t, rf, ReadFileInput{Path: "missing.txt"}, "does not exist")
	fails(t, rf, ReadFileInput{Path: "a.txt", Offset: 10}, "past the end", "3 lines")
	fails(t, rf, ReadFileInput{Path: "a.txt", Limit: -1}, "negative")
	fails(t, rf, ReadFileInput{}, "path is required")
}

func TestReadFileCaps(t *testing.T) {
	ws, root := newWS(t)
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	long := strings.Repeat("é", 5000) // 10000 bytes, 2-byte runes
	files(t, root, map[string]string{"big.txt": b.String(), "long.txt": long + "\nshort\n"})
	rf := NewReadFile(ws)

	out := ok(t, rf, ReadFileInput{Path: "big.txt"})
	if len(out) > readMaxBytes+200 {
		t.Errorf("output is %d bytes, over the %d budget", len(out), readMaxBytes)
	}
	if !strings.HasPrefix(out, "     1\tline 1\n") || !strings.Contains(out, "of 3000; read more with offset=") {
		t.Errorf("capped read: head %q tail %q", out[:40], out[len(out)-80:])
	}
	out = ok(t, rf, ReadFileInput{Path: "big.txt", Offset: 2990})
	if !strings.Contains(out, "  3000\tline 3000\n") || strings.Contains(out, "showing") {
		t.Errorf("read of the end = %q", out)
	}

	out = ok(t, rf, ReadFileInput{Path: "long.txt"})
	first, _, _ := strings.Cut(out, "\n")
	if len(first) > readMaxLineLen+20 || !strings.HasSuffix(first, "…") || !strings.Contains(out, "     2\tshort") {
		t.Errorf("long line not capped: %d bytes, %q...", len(first), first[:20])
	}
	if !strings.Contains(first, "é") || !utf8.ValidString(first) {
		t.Error("long line cut inside a UTF-8 sequence")
	}
}
