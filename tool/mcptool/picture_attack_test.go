package mcptool

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostilePNG is a w×h PNG at 16 bits per channel (RGBA) whose IDAT is
// idat, or zero rows compressed as they are written when idat is nil.
func hostilePNG(t *testing.T, w, h int, idat []byte) []byte {
	t.Helper()
	chunk := func(b *bytes.Buffer, typ string, data []byte) {
		_ = binary.Write(b, binary.BigEndian, uint32(len(data)))
		c := append([]byte(typ), data...)
		b.Write(c)
		_ = binary.Write(b, binary.BigEndian, crc32.ChecksumIEEE(c))
	}
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 16, 6
	chunk(&b, "IHDR", ihdr)
	if idat == nil {
		var z bytes.Buffer
		zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
		row := make([]byte, 1+w*8)
		for range h {
			_, _ = zw.Write(row)
		}
		_ = zw.Close()
		idat = z.Bytes()
	}
	chunk(&b, "IDAT", idat)
	chunk(&b, "IEND", nil)
	return b.Bytes()
}

// A hostile server's pictures: a decompression bomb under the pixel cap
// (400 MB decoded from 390 KB), a polyglot whose header parses over
// pixels that do not, and a flood of them. None reaches the model, the
// harness does not decode the bomb, and the model is told why.
func TestHostilePicturesDoNotReachTheModel(t *testing.T) {
	bomb := hostilePNG(t, 7071, 7071, nil)
	polyglot := hostilePNG(t, 32, 32, []byte("<?php system($_GET['c']); ?> not zlib"))
	content := []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: polyglot}}
	for range 50 {
		content = append(content, &mcp.ImageContent{MIMEType: "image/png", Data: bomb})
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := convertResult(&mcp.CallToolResult{Content: content})
	runtime.ReadMemStats(&after)
	if len(res.Images) != 0 {
		for _, im := range res.Images {
			_, _, err := image.Decode(bytes.NewReader(im.Data))
			t.Errorf("attached %s %d×%d (decodes: %v)", im.MediaType, im.Width, im.Height, err)
		}
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 128<<20 {
		t.Errorf("converting the result allocated %d MB", grew>>20)
	}
	if n := strings.Count(res.Output, "not attached"); n != maxResultImages {
		t.Errorf("%d pictures said not attached, want %d: %q", n, maxResultImages, res.Output[:min(len(res.Output), 600)])
	}
}

// A stdio server, started plainly or as the sandbox starts them, that
// answers the handshake with 256 MB of base64 on one line: the connection
// fails, and harness9 does not buffer the flood (the SDK caps a line).
func TestFloodingServerIsCutOff(t *testing.T) {
	started := func(_ string, cmd *exec.Cmd, _ map[string]string) (func(), error) { return nil, cmd.Start() }
	for name, opts := range map[string][]Option{"plain": nil, "starter": {WithStarter(started)}} {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		m, err := Connect(context.Background(), map[string]ServerConfig{
			"flood": {Command: os.Args[0], Env: map[string]string{"HARNESS9_MCPTOOL_HELPER": "flood"}},
		}, append(opts, WithBaseEnv(os.Environ()), WithTimeout(60*time.Second))...)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if st := m.Status(); len(st) != 1 || st[0].Connected {
			t.Errorf("%s: status = %+v, want the flooding server refused", name, st)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 160<<20 {
			t.Errorf("%s: connecting allocated %d MB for a 256 MB line", name, grew>>20)
		}
		_ = m.Close()
	}
}
