//go:build unix

package skill

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness9/harness9/tool"
)

const secret = "SECRET-KEY-BYTES"

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// within fails the test when fn has not returned before a generous
// deadline: a FIFO opened for reading blocks until a writer comes.
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("%s hung", what)
	}
}

// An AGENTS.md linked to a key (the workdir is the home directory) or out
// of the workdir never lands in the prompt; nested ones neither.
func TestAgentsMDLinkedToAKeyIsNotRead(t *testing.T) {
	home := t.TempDir()
	outside := t.TempDir()
	write(t, filepath.Join(home, ".ssh", "id_rsa"), secret)
	write(t, filepath.Join(outside, "notes.md"), secret)
	symlink(t, ".ssh/id_rsa", filepath.Join(home, AgentsFile))
	symlink(t, "../.ssh/id_rsa", filepath.Join(home, "svc", AgentsFile))
	symlink(t, filepath.Join(outside, "notes.md"), filepath.Join(home, "lib", AgentsFile))
	symlink(t, "../../outside", filepath.Join(home, "up", "x")) // dangling: harmless
	write(t, filepath.Join(home, "svc", "a.go"), "package svc")
	write(t, filepath.Join(home, "lib", "b.go"), "package lib")

	if got := LoadAgentsMD(openWS(t, home, home), 0); strings.Contains(got, secret) || got != "" {
		t.Errorf("LoadAgentsMD = %q", got)
	}
	hook := NestedAgentsHook(openWS(t, home, home), 0)
	for _, p := range []string{"svc/a.go", "lib/b.go"} {
		res := tool.Result{Output: "ok"}
		in, _ := json.Marshal(map[string]string{"path": p})
		hook("read_file", in, &res)
		if res.Output != "ok" {
			t.Errorf("%s: the hook appended %q", p, res.Output)
		}
	}

	work := t.TempDir()
	symlink(t, filepath.Join(outside, "notes.md"), filepath.Join(work, AgentsFile))
	if got := LoadAgentsMD(openWS(t, work, ""), 0); got != "" {
		t.Errorf("AGENTS.md linked out of the workdir = %q", got)
	}
}

// A FIFO as AGENTS.md, SKILL.md or a skill's file returns promptly.
func TestSkillsAndAgentsMDDoNotHangOnAFIFO(t *testing.T) {
	work := t.TempDir()
	dir := filepath.Join(work, ".harness9", "skills")
	write(t, filepath.Join(dir, "ok", "SKILL.md"), skillMD("ok", "d", "body"))
	write(t, filepath.Join(work, "svc", "a.go"), "package svc")
	for _, p := range []string{
		filepath.Join(work, AgentsFile), filepath.Join(work, "svc", AgentsFile),
		filepath.Join(dir, "pipe", "SKILL.md"), filepath.Join(dir, "ok", "pipe.md"),
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	symlink(t, "pipe.md", filepath.Join(dir, "ok", "link.md"))
	within(t, "LoadAgentsMD", func() { LoadAgentsMD(openWS(t, work, ""), 0) })
	within(t, "NestedAgentsHook", func() {
		res := tool.Result{Output: "ok"}
		NestedAgentsHook(openWS(t, work, ""), 0)("read_file", json.RawMessage(`{"path":"svc/a.go"}`), &res)
	})
	var skills []Skill
	within(t, "Discover", func() { skills, _ = Discover(openWS(t, work, ""), "") })
	if len(skills) != 1 || skills[0].Name != "ok" {
		t.Fatalf("skills = %+v", skills)
	}
	tl := NewUseSkillTool(skills)
	within(t, "use_skill", func() {
		for _, f := range []string{"", "pipe.md", "link.md"} {
			res := call(t, tl, `{"name":"ok","file":"`+f+`"}`)
			if f != "" && !res.IsError {
				t.Errorf("use_skill file %q = %s", f, res.Output)
			}
		}
	})
}

// A .harness9 or skill folder planted as a link out of the workdir, or a
// skill file linked to a key, is not read.
func TestProjectSkillsStayInTheWorkdir(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".ssh", "id_rsa"), secret)
	outside := t.TempDir()
	write(t, filepath.Join(outside, "skills", "evil", "SKILL.md"), skillMD("evil", "d", secret))
	write(t, filepath.Join(outside, "other", "SKILL.md"), skillMD("other", "d", secret))

	work := t.TempDir()
	symlink(t, outside, filepath.Join(work, ".harness9"))
	if skills, _ := Discover(openWS(t, work, home), ""); len(skills) != 0 {
		t.Errorf("a .harness9 link out of the workdir was followed: %+v", skills)
	}

	work = filepath.Join(home, "proj") // the workdir holds no key, its skill links to one
	dir := filepath.Join(work, ".harness9", "skills")
	write(t, filepath.Join(dir, "s", "SKILL.md"), skillMD("s", "d", "body"))
	symlink(t, filepath.Join(outside, "other"), filepath.Join(dir, "linked"))
	symlink(t, "../../../../.ssh/id_rsa", filepath.Join(dir, "s", "key.md"))
	skills, _ := Discover(openWS(t, work, home), "")
	if len(skills) != 1 || skills[0].Name != "s" {
		t.Fatalf("skills = %+v", skills)
	}
	tl := NewUseSkillTool(skills)
	for _, f := range []string{"key.md", "../../../../.ssh/id_rsa", "../linked/SKILL.md"} {
		if res := call(t, tl, `{"name":"s","file":"`+f+`"}`); !res.IsError || strings.Contains(res.Output, secret) {
			t.Errorf("use_skill file %q = %+v", f, res)
		}
	}
}
