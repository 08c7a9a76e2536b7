package picture

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"runtime"
	"testing"
)

// Hostile bytes (an MCP server's result, a repository's file): each test
// asserts what reaches the model and what the harness had to allocate.

func pngChunk(b *bytes.Buffer, typ string, data []byte) {
	_ = binary.Write(b, binary.BigEndian, uint32(len(data)))
	c := append([]byte(typ), data...)
	b.Write(c)
	_ = binary.Write(b, binary.BigEndian, crc32.ChecksumIEEE(c))
}

// craftedPNG is a w×h PNG of the given bit depth and colour type whose
// rows are zeros, or whose IDAT is idat when given; the rows are
// compressed as they are written, so a huge image costs the test little.
func craftedPNG(t *testing.T, w, h int, depth, ctype byte, bpp int, idat []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = depth, ctype
	pngChunk(&b, "IHDR", ihdr)
	if idat == nil {
		var z bytes.Buffer
		zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
		row := make([]byte, 1+w*bpp)
		for range h {
			if _, err := zw.Write(row); err != nil {
				t.Fatal(err)
			}
		}
		_ = zw.Close()
		idat = z.Bytes()
	}
	pngChunk(&b, "IDAT", idat)
	pngChunk(&b, "IEND", nil)
	return b.Bytes()
}

// A picture whose header is fine but whose pixels are not must not reach
// the model: a provider that cannot decode it refuses the request, and
// every later request of the session, which carries it in its history.
func TestDamagedSmallImageIsNotPassedOn(t *testing.T) {
	for name, data := range map[string][]byte{
		"garbage IDAT":   craftedPNG(t, 64, 64, 8, 2, 3, []byte("this is not zlib, it is a polyglot's payload")),
		"truncated rows": craftedPNG(t, 64, 64, 8, 2, 3, zlibOf(t, make([]byte, 10))),
	} {
		im, err := Prepare(data, name)
		if err == nil {
			t.Errorf("%s: attached as %s %d×%d", name, im.MediaType, im.Width, im.Height)
		}
	}
	// An intact small picture still passes byte for byte.
	ok := craftedPNG(t, 64, 64, 8, 2, 3, nil)
	if im, err := Prepare(ok, "ok"); err != nil || !bytes.Equal(im.Data, ok) {
		t.Fatalf("intact picture: %v", err)
	}
	if _, _, err := image.Decode(bytes.NewReader(ok)); err != nil {
		t.Fatal(err)
	}
}

func zlibOf(t *testing.T, b []byte) []byte {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return z.Bytes()
}

// A 390 KB PNG claiming 7071×7071 pixels at 16 bits per channel is under
// the pixel cap but decodes to 400 MB (and took 750 MB and ten seconds to
// shrink): it is refused from its header.
func TestSixteenBitBombIsRefusedBeforeDecoding(t *testing.T) {
	bomb := craftedPNG(t, 7071, 7071, 16, 6, 8, nil)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	im, err := Prepare(bomb, "bomb.png")
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Errorf("bomb attached as %d×%d", im.Width, im.Height)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("refusing the bomb allocated %d MB", grew>>20)
	}
}
