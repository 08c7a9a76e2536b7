package mcptool

import (
	"context"
	"testing"

	"github.com/harness9/harness9/tool"
)

// A tool is read-only when its server hints so, or when the user's
// configuration declares it (WithReadOnlyTools, by the server's own tool
// name); every other tool is not.
func TestReadOnlyByHintOrConfig(t *testing.T) {
	m, err := Connect(context.Background(), nil, WithTransport("local", inProcess(t)),
		WithReadOnlyTools("local", "mixed.content/v2"), WithReadOnlyTools("other", "fail"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	want := map[string]bool{"echo": true, "weather": true, "mixed.content/v2": true, "fail": false}
	tools := toolsByName(m)
	for remote, ro := range want {
		tl, ok := tools[Name("local", remote)]
		if !ok {
			t.Fatalf("no tool for %s in %v", remote, tools)
		}
		r, _ := tl.(tool.ReadOnly)
		if got := r != nil && r.ReadOnly(); got != ro {
			t.Errorf("%s read-only = %v, want %v", remote, got, ro)
		}
	}
}
