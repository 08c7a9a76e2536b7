package planning

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var slugRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Add user login":          "add-user-login",
		"../../etc":               "etc",
		"..":                      "plan",
		"":                        "plan",
		"🚀🔥✨":                     "plan",
		"  --Fix   the__BUG!!  ":  "fix-the-bug",
		"a/b\\c:d":                "a-b-c-d",
		"Café au lait":            "caf-au-lait",
		"v1.2.3 release":          "v1-2-3-release",
		"\x00\n\tnull bytes\x00":  "null-bytes",
		"C:\\Windows\\System32":   "c-windows-system32",
		"~/.ssh/authorized_keys":  "ssh-authorized-keys",
		strings.Repeat("x", 500):  strings.Repeat("x", 48),
		strings.Repeat("ab ", 30): strings.TrimSuffix(strings.Repeat("ab-", 16), "-"),
	} {
		got := Slug(in)
		if got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
		if !slugRE.MatchString(got) || len(got) > 48 {
			t.Errorf("Slug(%q) = %q is not a safe slug", in, got)
		}
	}
}

func FuzzSlug(f *testing.F) {
	f.Add("../../etc")
	f.Add("🚀")
	f.Fuzz(func(t *testing.T, s string) {
		got := Slug(s)
		if !slugRE.MatchString(got) || len(got) > 48 {
			t.Fatalf("Slug(%q) = %q", s, got)
		}
	})
}

func TestPlanBase(t *testing.T) {
	home := t.TempDir()
	plain := t.TempDir()
	if got := PlanBase(plain, home); got != home {
		t.Errorf("non-git workdir: %q, want %q", got, home)
	}
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := PlanBase(repo, home); got != filepath.Join(repo, ".harness9") {
		t.Errorf("git dir: %q", got)
	}
	worktree := t.TempDir()
	if err := os.WriteFile(filepath.Join(worktree, ".git"), []byte("gitdir: /x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := PlanBase(worktree, home); got != filepath.Join(worktree, ".harness9") {
		t.Errorf(".git file (worktree): %q", got)
	}
}

func TestFilePlanWriter(t *testing.T) {
	base := filepath.Join(t.TempDir(), "not", "yet")
	now := time.Unix(1700000000, 0)
	w := NewFilePlanWriter(base, "0123456789abcdef", now)
	if want := filepath.Join(base, "plans", "1700000000-01234567.md"); w.Path() != want {
		t.Fatalf("path = %q, want %q", w.Path(), want)
	}
	if err := w.Write([]TodoItem{item("1", TodoPending), item("2", TodoInProgress)}); err != nil {
		t.Fatal(err)
	}
	if err := OpenFilePlanWriter(w.Path()).Write([]TodoItem{item("1", TodoCompleted), item("2", TodoCancelled)}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	want := "# Plan\n\n1/2 completed\n\n- [x] step 1\n- [-] step 2\n"
	if string(b) != want {
		t.Fatalf("file = %q, want %q (rewritten, not appended)", b, want)
	}
	entries, _ := os.ReadDir(filepath.Dir(w.Path()))
	if len(entries) != 1 {
		t.Fatalf("plans dir holds %d entries, want only the plan file", len(entries))
	}
	if p := NewFilePlanWriter(base, "../x", now).Path(); filepath.Dir(p) != filepath.Join(base, "plans") {
		t.Fatalf("a hostile session id escaped the plans dir: %q", p)
	}
}

func TestCreateTaskDir(t *testing.T) {
	base := t.TempDir()
	now := time.Unix(1700000000, 0)
	p := Plan{Title: "Add login", Content: "Use sessions.\n", Steps: []string{"create auth.go", "add\ntest"}}
	todos := StepsToTodos(p.Steps)
	dir, err := CreateTaskDir(base, p, todos, now)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(base, "tasks", "1700000000-add-login"); dir != want {
		t.Fatalf("dir = %q, want %q", dir, want)
	}
	plan, _ := os.ReadFile(filepath.Join(dir, "PLAN.md"))
	if want := "# Add login\n\nUse sessions.\n\n## Steps\n\n1. create auth.go\n2. add test\n"; string(plan) != want {
		t.Errorf("PLAN.md = %q, want %q", plan, want)
	}
	todo, _ := os.ReadFile(filepath.Join(dir, "TODO.md"))
	if want := "# Add login\n\n0/2 completed\n\n- [ ] create auth.go\n- [ ] add test\n"; string(todo) != want {
		t.Errorf("TODO.md = %q, want %q", todo, want)
	}
	// The live writer rewrites TODO.md with every state marker.
	live := []TodoItem{{ID: "1", Content: "a", Status: TodoCompleted}, {ID: "2", Content: "b", Status: TodoInProgress},
		{ID: "3", Content: "c", Status: TodoPending}, {ID: "4", Content: "d", Status: TodoCancelled}}
	if err := NewTodoFileWriter(dir, p.Title).Write(live); err != nil {
		t.Fatal(err)
	}
	todo, _ = os.ReadFile(filepath.Join(dir, "TODO.md"))
	if want := "# Add login\n\n1/4 completed\n\n- [x] a\n- [>] b\n- [ ] c\n- [-] d\n"; string(todo) != want {
		t.Errorf("TODO.md = %q, want %q", todo, want)
	}
}

func TestCreateTaskDirHostileTitles(t *testing.T) {
	base := t.TempDir()
	tasks := filepath.Join(base, "tasks")
	now := time.Unix(1700000000, 0)
	for _, title := range []string{"../../etc", "", strings.Repeat("long title ", 50), "🚀🔥", "/", "..\\..\\x"} {
		dir, err := CreateTaskDir(base, Plan{Title: title, Steps: []string{"s"}}, nil, now)
		if err != nil {
			t.Fatalf("title %q: %v", title, err)
		}
		if filepath.Dir(dir) != tasks {
			t.Fatalf("title %q: task dir %q is not directly under %q", title, dir, tasks)
		}
		if name := filepath.Base(dir); len(name) > len("1700000000-")+48+4 {
			t.Errorf("title %q: name %q too long", title, name)
		}
	}
}

func TestCreateTaskDirCollisions(t *testing.T) {
	base := t.TempDir()
	now := time.Unix(1700000000, 0)
	p := Plan{Title: "Same title", Steps: []string{"s"}}
	var names []string
	for range 3 {
		dir, err := CreateTaskDir(base, p, nil, now)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, filepath.Base(dir))
	}
	want := []string{"1700000000-same-title", "1700000000-same-title-2", "1700000000-same-title-3"}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("names = %v, want %v", names, want)
		}
	}
}

func TestFormatChecklistEmpty(t *testing.T) {
	if got := FormatChecklist("T", nil); got != "# T\n\n0/0 completed\n\n" {
		t.Fatalf("got %q", got)
	}
}
