package builtin

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadFileImage(t *testing.T) {
	ws, root := newWS(t)
	small, big := pngBytes(t, 40, 30), pngBytes(t, 4000, 100)
	files(t, root, map[string]string{
		"shot.png":     string(small),
		"named.txt":    string(small), // the content decides, not the name
		"big.png":      string(big),
		"fake.png":     "just text",
		"cut/part.png": string(small[:30]),
	})
	rf := NewReadFile(ws)
	for _, name := range []string{"shot.png", "named.txt"} {
		res := call(t, rf, ReadFileInput{Path: name})
		if res.IsError || len(res.Images) != 1 || !bytes.Equal(res.Images[0].Data, small) ||
			res.Images[0].MediaType != "image/png" || !strings.Contains(res.Output, "40×30") {
			t.Fatalf("%s: %+v", name, res)
		}
	}
	res := call(t, rf, ReadFileInput{Path: "big.png"})
	if res.IsError || len(res.Images) != 1 || res.Images[0].Width != 1568 {
		t.Fatalf("big.png not downscaled: %s", res.Output)
	}
	// Text that claims to be a PNG by name is read as text.
	if got := ok(t, rf, ReadFileInput{Path: "fake.png"}); !strings.Contains(got, "just text") {
		t.Errorf("fake.png = %q", got)
	}
	fails(t, rf, ReadFileInput{Path: "cut/part.png"}, "damaged")
}

// An image outside the workspace, reached by a path or a symlink, is not
// read: images go through the same Workspace as text.
func TestReadFileImageStaysInWorkspace(t *testing.T) {
	ws, root := newWS(t)
	outside := filepath.Join(t.TempDir(), "secret.png")
	if err := os.WriteFile(outside, pngBytes(t, 5, 5), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link.png")); err != nil {
		t.Fatal(err)
	}
	rf := NewReadFile(ws)
	for _, p := range []string{outside, "link.png", "../" + filepath.Base(filepath.Dir(outside)) + "/secret.png"} {
		if res := call(t, rf, ReadFileInput{Path: p}); !res.IsError || len(res.Images) > 0 {
			t.Errorf("%s: read from outside the workspace: %+v", p, res)
		}
	}
}
