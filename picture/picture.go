// Package picture turns an image file into an llm.Image a model accepts:
// the format is recognised from the bytes (PNG, JPEG, GIF, WebP; the file
// name's extension does not count), the file size and the pixel count are
// capped before anything is decoded, and a picture larger than the
// providers take is downscaled and re-encoded.
//
// The limits are Anthropic's (the stricter of the two providers): at most
// 1568 pixels on the longest side before the API resizes it anyway, and
// under 5 MB of base64 (3.75 MB of bytes) per image.
package picture

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"

	"github.com/harness9/harness9/llm"
	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // registers the WebP decoder with image
)

// Limits. MaxFileBytes is checked before reading a file whole; MaxPixels
// before decoding one (a 100-byte PNG can claim 100000×100000 pixels: a
// decompression bomb); MaxDecodedBytes too, since the same pixels take
// eight bytes each at 16 bits per channel; MaxSide and MaxEncodedBytes are
// what is sent.
const (
	MaxFileBytes    = 20 << 20
	MaxPixels       = 50_000_000
	MaxDecodedBytes = 160 << 20 // an 8K RGBA screenshot, a 48 MP photo
	MaxSide         = 1568
	MaxEncodedBytes = 3_750_000
)

// The media types this package accepts.
const (
	PNG  = "image/png"
	JPEG = "image/jpeg"
	GIF  = "image/gif"
	WebP = "image/webp"
)

// ErrNotImage is returned for data that is not a PNG, JPEG, GIF or WebP file.
var ErrNotImage = errors.New("not a PNG, JPEG, GIF or WebP image")

// Sniff returns the media type of an image file from its first bytes, or
// "" when it is none of the accepted formats. 12 bytes are enough.
func Sniff(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return PNG
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return JPEG
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return GIF
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return WebP
	}
	return ""
}

// ReadFile reads and prepares the image file at path. It refuses a file
// that is not regular or larger than MaxFileBytes before reading it. The
// caller decides whether path may be opened at all.
func ReadFile(path string) (llm.Image, error) {
	// Stat first: opening a FIFO would block until a writer appears.
	if fi, err := os.Stat(path); err != nil {
		return llm.Image{}, err
	} else if !fi.Mode().IsRegular() {
		return llm.Image{}, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return llm.Image{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return llm.Image{}, err
	}
	if !fi.Mode().IsRegular() {
		return llm.Image{}, fmt.Errorf("%s is not a regular file", path)
	}
	return Read(f, filepath.Base(path))
}

// Read reads an image file from r (at most MaxFileBytes) and prepares it.
// name labels the result (llm.Image.Name) and error messages.
func Read(r io.Reader, name string) (llm.Image, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return llm.Image{}, fmt.Errorf("read image %s: %w", name, err)
	}
	if len(data) > MaxFileBytes {
		return llm.Image{}, fmt.Errorf("image %s is larger than %d MB; make it smaller first", name, MaxFileBytes>>20)
	}
	return Prepare(data, name)
}

// Prepare checks data and returns it as an image within the limits: the
// original bytes when they fit, else downscaled so that the longest side is
// at most MaxSide and re-encoded (PNG for PNG and GIF sources while that
// fits, JPEG otherwise).
func Prepare(data []byte, name string) (llm.Image, error) {
	typ := Sniff(data)
	if typ == "" {
		return llm.Image{}, fmt.Errorf("%s: %w", name, ErrNotImage)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return llm.Image{}, fmt.Errorf("%s: damaged %s: %w", name, typ, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return llm.Image{}, fmt.Errorf("%s: image has no pixels", name)
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return llm.Image{}, fmt.Errorf("%s: %d×%d pixels is more than the %d megapixels harness9 decodes; scale it down first",
			name, cfg.Width, cfg.Height, MaxPixels/1_000_000)
	}
	if n := int64(cfg.Width) * int64(cfg.Height) * bytesPerPixel(cfg.ColorModel); n > MaxDecodedBytes {
		return llm.Image{}, fmt.Errorf("%s: %d×%d pixels at this colour depth take %d MB to decode, more than the %d MB harness9 allows; scale it down first",
			name, cfg.Width, cfg.Height, n>>20, MaxDecodedBytes>>20)
	}
	// One picture is decoded at a time in the whole process: results of
	// parallel tool calls cannot multiply the memory a decode takes.
	decoding <- struct{}{}
	defer func() { <-decoding }()
	// Decoded whole even when it is sent as it is: a header that parses
	// over pixels that do not would be refused by the provider, in this
	// request and in every later one of the session that carries it.
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return llm.Image{}, fmt.Errorf("%s: damaged %s: %w", name, typ, err)
	}
	if max(cfg.Width, cfg.Height) <= MaxSide && len(data) <= MaxEncodedBytes {
		return llm.Image{MediaType: typ, Data: data, Name: name, Width: cfg.Width, Height: cfg.Height}, nil
	}
	return shrink(src, typ, name)
}

// decoding holds the one decode allowed at a time.
var decoding = make(chan struct{}, 1)

// bytesPerPixel is what the decoder allocates per pixel for model, at
// most: 16-bit colour takes 8, YCbCr up to 3 (4:4:4), a palette 1.
func bytesPerPixel(model color.Model) int64 {
	switch model {
	case color.RGBA64Model, color.NRGBA64Model:
		return 8
	case color.Gray16Model:
		return 2
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.YCbCrModel:
		return 3
	}
	if _, ok := model.(color.Palette); ok {
		return 1
	}
	return 4 // RGBA, NRGBA, CMYK, NYCbCrA and anything unknown
}

// shrink scales src to fit MaxSide and encodes it under MaxEncodedBytes,
// trying smaller sizes until it fits.
func shrink(src image.Image, typ, name string) (llm.Image, error) {
	b := src.Bounds()
	w, h := fit(b.Dx(), b.Dy(), MaxSide)
	// The first size is always tried: a 4000×10 banner fits at 1568×3.
	for first := true; first || (w >= 16 && h >= 16); first = false {
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.CatmullRom.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
		out, outType, err := encode(dst, typ == PNG || typ == GIF)
		if err != nil {
			return llm.Image{}, fmt.Errorf("%s: re-encode: %w", name, err)
		}
		if len(out) <= MaxEncodedBytes {
			return llm.Image{MediaType: outType, Data: out, Name: name, Width: w, Height: h}, nil
		}
		w, h = w*3/4, h*3/4
	}
	return llm.Image{}, fmt.Errorf("%s: cannot make the image small enough to send", name)
}

// encode encodes img as PNG when lossless is wanted and fits, else JPEG.
func encode(img image.Image, lossless bool) ([]byte, string, error) {
	var buf bytes.Buffer
	if lossless {
		if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
			return nil, "", err
		}
		if buf.Len() <= MaxEncodedBytes {
			return buf.Bytes(), PNG, nil
		}
		buf.Reset()
	}
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), JPEG, nil
}

// fit returns w×h scaled down (never up) so the longest side is at most side.
func fit(w, h, side int) (int, int) {
	if w <= side && h <= side {
		return w, h
	}
	if w >= h {
		return side, max(1, int(int64(h)*int64(side)/int64(w)))
	}
	return max(1, int(int64(w)*int64(side)/int64(h))), side
}

// The decoders image.DecodeConfig uses; webp registers itself on import.
var _ = []func(io.Reader) (image.Config, error){png.DecodeConfig, jpeg.DecodeConfig, gif.DecodeConfig}
