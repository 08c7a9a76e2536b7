package tool_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/tool"
)

// A tool from a typed function: its JSON Schema comes from the input
// struct, and the Registry validates every call against it before the
// function runs; a bad call comes back to the model as an error result.
func ExampleNew() {
	type greetIn struct {
		Name string `json:"name" jsonschema:"who to greet"`
	}
	greet := tool.New("greet", "Greet someone.", func(_ context.Context, in greetIn) (tool.Result, error) {
		return tool.Result{Output: "hello, " + in.Name}, nil
	}, tool.AsReadOnly())

	reg := tool.NewRegistry()
	_ = reg.Register(greet)
	for _, input := range []string{`{"name": "Ada"}`, `{"name": 42}`} {
		r := reg.Execute(context.Background(), nil, llm.ToolCall{ID: "1", Name: "greet", Input: []byte(input)})
		fmt.Println(r.IsError, r.Output != "")
		if !r.IsError {
			fmt.Println(r.Output)
		}
	}
	// Output:
	// false true
	// hello, Ada
	// true true
}

// A Workspace confines every path to its root, resolved by the kernel: a
// symlink that leaves the root is refused, and so is the deny list even
// when the root contains it.
func ExampleNewWorkspace() {
	home, _ := os.MkdirTemp("", "home")
	defer os.RemoveAll(home)
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("secret"), 0o600)
	os.WriteFile(filepath.Join(home, "notes.txt"), []byte("hello"), 0o600)
	os.Symlink("/etc/hostname", filepath.Join(home, "out"))

	ws, _ := tool.NewWorkspace(home, tool.WithHome(home)) // the workdir is home itself
	for _, p := range []string{"notes.txt", ".ssh/id_rsa", "out", "../x"} {
		_, _, err := ws.ReadFile(p, 1024)
		fmt.Println(p, err == nil)
	}
	// Output:
	// notes.txt true
	// .ssh/id_rsa false
	// out false
	// ../x false
}
