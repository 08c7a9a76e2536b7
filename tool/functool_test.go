package tool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

type fnIn struct {
	Path string `json:"path"`
}

func noop(context.Context, fnIn) (Result, error) { return Text("ok"), nil }

// What New's options declare is what the property interfaces report; an
// undeclared property answers as a tool without it, and so does a call
// whose input does not decode.
func TestNewDeclaresProperties(t *testing.T) {
	bare := New("bare", "d", noop)
	in := json.RawMessage(`{"path":"a.txt"}`)
	bad := json.RawMessage(`{"path":7}`)
	if files, tree := bare.(FileChanger).ChangedFiles(in); files != nil || tree {
		t.Errorf("bare ChangedFiles = %v %v", files, tree)
	}
	if p := bare.(Previewer).Preview(in); p != "" {
		t.Errorf("bare Preview = %q", p)
	}
	if _, ok := bare.(ChangePreviewer).PreviewChange(context.Background(), in); ok {
		t.Error("bare PreviewChange ok")
	}
	if s := bare.(Scoped).Scope(in); s != (Scope{}) {
		t.Errorf("bare Scope = %+v", s)
	}
	if s := bare.(Summarizer).Summary(in, Text("x")); s != "" {
		t.Errorf("bare Summary = %q", s)
	}
	if bare.(ReadOnly).ReadOnly() || KindOf(bare) != KindOther {
		t.Error("bare is read-only or has a kind")
	}

	full := New("full", "d", noop,
		WithChangedFiles(func(in fnIn) []string { return []string{in.Path} }),
		WithAnyFileChanged(),
		WithChangePreview(func(_ context.Context, in fnIn) (FileChange, bool) {
			return FileChange{Path: in.Path, Old: "a\n", New: "b\n"}, true
		}),
		WithScope(func(in fnIn) Scope { return Scope{Path: in.Path} }),
		WithSummary(func(in fnIn, res Result) string { return in.Path + ": " + res.Output }),
		WithKind(KindEdit),
	)
	if files, tree := full.(FileChanger).ChangedFiles(in); len(files) != 1 || files[0] != "a.txt" || !tree {
		t.Errorf("ChangedFiles = %v %v", files, tree)
	}
	if p := full.(Previewer).Preview(in); !strings.Contains(p, "-a") || !strings.Contains(p, "+b") {
		t.Errorf("Preview without WithPreview = %q, want the change's diff", p)
	}
	if s := full.(Scoped).Scope(in); s.Path != "a.txt" {
		t.Errorf("Scope = %+v", s)
	}
	if s := full.(Summarizer).Summary(in, Text("ok")); s != "a.txt: ok" {
		t.Errorf("Summary = %q", s)
	}
	if KindOf(full) != KindEdit {
		t.Errorf("kind = %s", KindOf(full))
	}
	if files, _ := full.(FileChanger).ChangedFiles(bad); files != nil {
		t.Errorf("ChangedFiles of bad input = %v", files)
	}
	if s := full.(Scoped).Scope(bad); s != (Scope{}) {
		t.Errorf("Scope of bad input = %+v", s)
	}
	if p := full.(Previewer).Preview(bad); p != "" {
		t.Errorf("Preview of bad input = %q", p)
	}

	withText := New("t", "d", noop, WithPreview(func(in fnIn) string { return "write " + in.Path }),
		WithChangePreview(func(context.Context, fnIn) (FileChange, bool) { return FileChange{New: "x"}, true }))
	if p := withText.(Previewer).Preview(in); p != "write a.txt" {
		t.Errorf("Preview = %q, want WithPreview's", p)
	}
}

func TestNewRefusesReadOnlyThatChangesFiles(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "read-only") {
			t.Errorf("recover() = %v", r)
		}
	}()
	New("x", "d", noop, AsReadOnly(), WithAnyFileChanged())
}
