package picture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func pngOf(t *testing.T, w, h int, noisy bool) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for y := range h {
		for x := range w {
			c := color.RGBA{uint8(x), uint8(y), 100, 255}
			if noisy {
				c = color.RGBA{uint8(r.Uint32()), uint8(r.Uint32()), uint8(r.Uint32()), 255}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSmallImagesPassUnchanged(t *testing.T) {
	data := pngOf(t, 80, 60, false)
	im, err := Prepare(data, "a.png")
	if err != nil {
		t.Fatal(err)
	}
	if im.MediaType != PNG || !bytes.Equal(im.Data, data) || im.Width != 80 || im.Height != 60 {
		t.Fatalf("got %s %d×%d, %d bytes", im.MediaType, im.Width, im.Height, len(im.Data))
	}
	if im.Placeholder() != "[image: a.png 80×60]" {
		t.Errorf("placeholder %q", im.Placeholder())
	}
	var jbuf, gbuf bytes.Buffer
	_ = jpeg.Encode(&jbuf, image.NewGray(image.Rect(0, 0, 10, 10)), nil)
	_ = gif.Encode(&gbuf, image.NewPaletted(image.Rect(0, 0, 10, 10), color.Palette{color.Black, color.White}), nil)
	for typ, data := range map[string][]byte{JPEG: jbuf.Bytes(), GIF: gbuf.Bytes()} {
		// The extension says nothing: a JPEG named .png is a JPEG.
		im, err := Prepare(data, "x.png")
		if err != nil || im.MediaType != typ {
			t.Errorf("%s: %v %q", typ, err, im.MediaType)
		}
	}
}

func TestLargeImagesAreDownscaled(t *testing.T) {
	// A wide image: the longest side comes down to MaxSide, the aspect stays.
	im, err := Prepare(pngOf(t, 3200, 800, false), "wide.png")
	if err != nil {
		t.Fatal(err)
	}
	if im.Width != MaxSide || im.Height != 392 || im.MediaType != PNG {
		t.Fatalf("got %s %d×%d", im.MediaType, im.Width, im.Height)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(im.Data))
	if err != nil || format != "png" || cfg.Width != MaxSide || cfg.Height != 392 {
		t.Fatalf("encoded %v %s %+v", err, format, cfg)
	}
	// Noise does not compress: within MaxSide but over MaxEncodedBytes as
	// PNG, it must come back as a JPEG under the limit.
	noisy := pngOf(t, 1500, 1500, true)
	if len(noisy) <= MaxEncodedBytes {
		t.Fatalf("test image only %d bytes", len(noisy))
	}
	im, err = Prepare(noisy, "noise.png")
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Data) > MaxEncodedBytes || im.MediaType != JPEG || Sniff(im.Data) != JPEG {
		t.Fatalf("got %s, %d bytes", im.MediaType, len(im.Data))
	}
}

// A PNG whose header claims 100000×100000 pixels must be refused from the
// header, before a 40 GB decode is attempted.
func TestDecompressionBombRefusedFromHeader(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], 100000)
	binary.BigEndian.PutUint32(ihdr[4:], 100000)
	ihdr[8], ihdr[9] = 8, 2 // 8-bit RGB
	chunk := append([]byte("IHDR"), ihdr...)
	_ = binary.Write(&b, binary.BigEndian, uint32(13))
	b.Write(chunk)
	_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	_, err := Prepare(b.Bytes(), "bomb.png")
	if err == nil || !strings.Contains(err.Error(), "megapixels") {
		t.Fatalf("bomb: %v", err)
	}
}

func TestNotImagesRefused(t *testing.T) {
	for name, data := range map[string][]byte{
		"text.png": []byte("hello, I am text"),
		"svg.png":  []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`),
		"cut.png":  pngOf(t, 10, 10, false)[:20],
	} {
		_, err := Prepare(data, name)
		if err == nil {
			t.Errorf("%s accepted", name)
		}
		if name != "cut.png" && !errors.Is(err, ErrNotImage) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if Sniff([]byte("RIFF\x00\x00\x00\x00WEBPVP8 ")) != WebP || Sniff([]byte("RIFF\x00\x00\x00\x00WAVE")) != "" {
		t.Error("WebP sniffing")
	}
}

func TestReadFileRefusesHugeAndSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.png")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.Write(pngOf(t, 10, 10, false))
	_ = f.Truncate(MaxFileBytes + 10)
	_ = f.Close()
	if _, err := ReadFile(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("huge file: %v", err)
	}
	if _, err := ReadFile(dir); err == nil {
		t.Error("a directory was read as an image")
	}
}
