package subagent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/harness9/harness9/subagent"
	"github.com/harness9/harness9/tool"
)

func writeAgent(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestParse(t *testing.T) {
	d, err := subagent.Parse([]byte("---\r\nname: reviewer\r\ndescription: Reviews a diff\r\ntools: [read_file, grep, read_file]\r\nmodel: small\r\n---\r\nBe terse.\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "reviewer" || d.Description != "Reviews a diff" || d.Model != "small" || d.Prompt != "Be terse." ||
		strings.Join(d.Tools, ",") != "read_file,grep" || d.ReadOnly {
		t.Errorf("Parse = %+v", d)
	}
	for _, bad := range []string{
		"no frontmatter",
		"---\nname: x\n",
		"---\nname: ../x\ndescription: d\n---\n",
		"---\nname: ok\n---\n",
		"---\nname: [\n---\n",
	} {
		if _, err := subagent.Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
	// Omitted tools mean "the parent's"; an empty list means none.
	d, _ = subagent.Parse([]byte("---\nname: a\ndescription: d\n---\n"))
	if d.Tools != nil {
		t.Errorf("omitted tools = %#v, want nil", d.Tools)
	}
	d, _ = subagent.Parse([]byte("---\nname: a\ndescription: d\ntools: []\n---\n"))
	if d.Tools == nil || len(d.Tools) != 0 {
		t.Errorf("empty tools = %#v, want empty non-nil", d.Tools)
	}
}

func TestDiscover(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	proj := filepath.Join(work, ".harness9", "agents")
	writeAgent(t, proj, "docs.md", "---\nname: docs\ndescription: project docs writer\n---\nP")
	writeAgent(t, proj, "explore.md", "---\nname: explore\ndescription: hijack\ntools: [write_file]\n---\n")
	writeAgent(t, proj, "broken.md", "nothing")
	writeAgent(t, proj, "notes.txt", "ignored")
	writeAgent(t, filepath.Join(home, "agents"), "docs.md", "---\nname: docs\ndescription: user docs writer\n---\nU")
	writeAgent(t, filepath.Join(home, "agents"), "mine.md", "---\nname: mine\ndescription: mine\nread_only: true\n---\n")
	// A link planted in the repository that leads out of it is not read.
	secret := filepath.Join(t.TempDir(), "secret.md")
	writeAgent(t, filepath.Dir(secret), "secret.md", "---\nname: leaked\ndescription: outside\n---\n")
	if err := os.Symlink(secret, filepath.Join(proj, "leak.md")); err != nil {
		t.Fatal(err)
	}
	defs, errs := subagent.Discover(openWS(t, work), home)
	byName := map[string]subagent.Definition{}
	for _, d := range defs {
		byName[d.Name] = d
	}
	if len(defs) != 4 {
		t.Fatalf("Discover = %+v", defs)
	}
	if !byName["explore"].ReadOnly || byName["explore"].Source != "builtin" {
		t.Errorf("explore was overridden: %+v", byName["explore"])
	}
	if byName["docs"].Prompt != "P" || !byName["mine"].ReadOnly || byName["general"].Source != "builtin" {
		t.Errorf("definitions = %+v", defs)
	}
	if _, ok := byName["leaked"]; ok {
		t.Error("a definition outside the workdir was read through a link")
	}
	joined := ""
	for _, e := range errs {
		joined += e.Error() + "\n"
	}
	for _, want := range []string{"broken.md", "built-in", "leak.md"} {
		if !strings.Contains(joined, want) {
			t.Errorf("errors %q lack %q", joined, want)
		}
	}
}

type fakeRunner struct {
	mu      sync.Mutex
	running int
	peak    int
	release chan struct{}
	got     []subagent.Request
}

func (f *fakeRunner) RunTask(ctx context.Context, req subagent.Request) (subagent.Report, error) {
	f.mu.Lock()
	f.running++
	f.peak = max(f.peak, f.running)
	f.got = append(f.got, req)
	f.mu.Unlock()
	<-f.release
	f.mu.Lock()
	f.running--
	f.mu.Unlock()
	return subagent.Report{Answer: "found it", Status: "completed", SessionID: "abc", Turns: 2, ToolCalls: 3,
		Tools: []string{"read_file"}, Files: []string{"a.go"}, Tokens: 1234}, nil
}

func TestTaskToolBoundsParallelRuns(t *testing.T) {
	r := &fakeRunner{release: make(chan struct{})}
	tl := subagent.NewTool(subagent.Builtins(), r, subagent.WithMaxParallel(2))
	in, _ := json.Marshal(subagent.Input{Description: "d", Prompt: "p"})
	var wg sync.WaitGroup
	outs := make([]string, 5)
	for i := range 5 {
		wg.Go(func() {
			res, err := tl.Execute(context.Background(), in)
			if err != nil || res.IsError {
				t.Errorf("Execute = %+v, %v", res, err)
			}
			outs[i] = res.Output
		})
	}
	for range 5 {
		r.release <- struct{}{}
	}
	wg.Wait()
	if r.peak > 2 {
		t.Errorf("%d sub-agents ran at once, want at most 2", r.peak)
	}
	if r.got[0].Agent.Name != subagent.Explore {
		t.Errorf("default agent = %q", r.got[0].Agent.Name)
	}
	if !strings.Contains(outs[0], "found it") || !strings.Contains(outs[0], "3 tool calls (read_file)") ||
		!strings.Contains(outs[0], "a.go") || !strings.Contains(outs[0], "1234 tokens") {
		t.Errorf("result = %q", outs[0])
	}
	bad, _ := json.Marshal(subagent.Input{Prompt: "p", Agent: "nope"})
	if res, _ := tl.Execute(context.Background(), bad); !res.IsError || !strings.Contains(res.Output, "explore, general") {
		t.Errorf("unknown agent = %+v", res)
	}
}

func openWS(t *testing.T, dir string) *tool.Workspace {
	t.Helper()
	ws, err := tool.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}
