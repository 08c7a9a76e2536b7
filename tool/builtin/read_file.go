package builtin

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/picture"
	"github.com/harness9/harness9/tool"
)

//go:embed read_file.md
var readFileDescription string

const (
	readDefaultLimit = 2000
	readMaxLineLen   = 2000
	// readMaxBytes keeps a result under the Registry's default output cap
	// (32 KiB), so a long file is paged with offset instead of having its
	// middle cut out.
	readMaxBytes = 28 << 10
)

// ReadFileInput is the input of read_file.
type ReadFileInput struct {
	Path   string `json:"path" jsonschema:"file to read, relative to the workspace root"`
	Offset int    `json:"offset,omitempty" jsonschema:"1-based line number to start reading at (default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"maximum number of lines to return (default 2000)"`
}

// ReadFile is the read_file tool.
type ReadFile struct {
	tool.Spec
	readOnly
	ws *tool.Workspace
}

// NewReadFile returns the read_file tool.
func NewReadFile(ws *tool.Workspace) *ReadFile {
	return &ReadFile{Spec: tool.NewSpec[ReadFileInput]("read_file", readFileDescription), ws: ws}
}

// Execute implements tool.Tool.
func (t *ReadFile) Execute(ctx context.Context, input json.RawMessage) (tool.Result, error) {
	return tool.Run(ctx, t.Name(), input, t.read)
}

func (t *ReadFile) read(ctx context.Context, in ReadFileInput) (tool.Result, error) {
	if in.Path == "" {
		return tool.Errorf("read_file: path is required"), nil
	}
	if in.Offset < 0 || in.Limit < 0 {
		return tool.Errorf("read_file: offset and limit must not be negative"), nil
	}
	offset, limit := max(in.Offset, 1), in.Limit
	if limit == 0 {
		limit = readDefaultLimit
	}
	f, fi, err := t.ws.Open(in.Path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return tool.Errorf("read_file: file %q does not exist; use glob or list_files to find the right path", in.Path), nil
		}
		return tool.Failed("read_file", err), nil
	}
	defer f.Close()
	if fi.IsDir() {
		return tool.Errorf("read_file: %q is a directory; use list_files to see what it contains", in.Path), nil
	}
	r := bufio.NewReaderSize(f, 64<<10)
	head, err := r.Peek(binarySniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return tool.Errorf("read_file: cannot read %q: %v", in.Path, err), nil
	}
	if typ := picture.Sniff(head); typ != "" {
		return readImage(r, in.Path, fi.Size())
	}
	if looksBinary(head) {
		return tool.Errorf("read_file: %q is a binary file; only text files can be read", in.Path), nil
	}
	if t.ws.HasEditor() {
		// The editor's text, unsaved changes included.
		text, _, err := t.ws.ReadText(ctx, in.Path, 0)
		if err != nil {
			return tool.Failed("read_file", err), nil
		}
		head, r = text, bufio.NewReaderSize(bytes.NewReader(text), 64<<10)
	}
	if len(head) == 0 {
		return tool.Text(fmt.Sprintf("(%s is empty)", in.Path)), nil
	}
	return t.format(r, in.Path, offset, limit)
}

// readImage returns an image file as an image for the model to look at,
// downscaled to the providers' limits. The engine replaces it with a note
// when the model cannot see images.
func readImage(r io.Reader, name string, size int64) (tool.Result, error) {
	if size > picture.MaxFileBytes {
		return tool.Errorf("read_file: %q is an image of %d MB; images over %d MB are not read", name, size>>20, picture.MaxFileBytes>>20), nil
	}
	im, err := picture.Read(r, path.Base(filepath.ToSlash(name)))
	if err != nil {
		return tool.Failed("read_file", err), nil
	}
	res := tool.Text(fmt.Sprintf("Attached %s (%s, %d×%d pixels, %d KB as sent) for you to look at.",
		name, im.MediaType, im.Width, im.Height, (len(im.Data)+1023)/1024))
	res.Images = []llm.Image{im}
	return res, nil
}

// format numbers the lines [offset, offset+limit) of r and adds a footer
// saying where to continue when the file has more.
func (t *ReadFile) format(r *bufio.Reader, name string, offset, limit int) (tool.Result, error) {
	var out []byte
	line, last := 0, 0 // last: the number of the last line shown
	full := true       // every requested line fit into readMaxBytes
	for {
		text, err := readLine(r)
		if len(text) > 0 || err == nil {
			line++
			if line >= offset && line < offset+limit && full {
				text = capLine(trimCR(text), readMaxLineLen)
				if len(out)+len(text)+8 > readMaxBytes && last > 0 {
					full = false
				} else {
					out = fmt.Appendf(out, "%6d\t%s\n", line, text)
					last = line
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return tool.Errorf("read_file: cannot read %q: %v", name, err), nil
		}
	}
	if offset > line {
		return tool.Errorf("read_file: offset %d is past the end of %q, which has %s", offset, name, plural(line, "line")), nil
	}
	if last < line {
		out = fmt.Appendf(out, "\n(showing lines %d-%d of %d; read more with offset=%d)", offset, last, line, last+1)
	}
	return tool.Text(string(out)), nil
}

// readLine returns the next line without its newline. A line longer than
// the reader's buffer is returned cut short; the rest of it is skipped.
func readLine(r *bufio.Reader) ([]byte, error) {
	b, err := r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		first := append([]byte(nil), b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = r.ReadSlice('\n')
		}
		return first, err
	}
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	return b, err
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}
