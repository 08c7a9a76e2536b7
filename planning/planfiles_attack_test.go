package planning

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/harness9/harness9/tool"
)

// gitWorkdir returns a workdir that holds .git, so plans go to
// <workdir>/.harness9, and a directory outside it.
func gitWorkdir(t *testing.T) (work, outside string) {
	t.Helper()
	work, outside = t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(work, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return work, outside
}

func link(t *testing.T, target, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// emptyDir fails the test when anything was written in dir.
func emptyDir(t *testing.T, dir string) {
	t.Helper()
	var found []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if p != dir {
			found = append(found, p)
		}
		return nil
	})
	if len(found) != 0 {
		t.Errorf("written outside the workdir: %v", found)
	}
}

var planTodos = []TodoItem{{ID: "1", Content: "step", Status: TodoPending}}

// A repository that plants .harness9, plans/ or tasks/ as links out of
// the workdir does not get plan files written there.
func TestPlanFilesStayInTheWorkdir(t *testing.T) {
	now := time.Unix(1700000000, 0)
	for _, c := range []struct {
		name  string
		plant func(t *testing.T, work, outside string)
	}{
		{".harness9 link", func(t *testing.T, work, outside string) {
			link(t, outside, filepath.Join(work, tool.DataDirName))
		}},
		{".harness9 relative link", func(t *testing.T, work, outside string) {
			rel, err := filepath.Rel(work, outside)
			if err != nil {
				t.Fatal(err)
			}
			link(t, rel, filepath.Join(work, tool.DataDirName))
		}},
		{"plans and tasks links", func(t *testing.T, work, outside string) {
			link(t, outside, filepath.Join(work, tool.DataDirName, "plans"))
			link(t, outside, filepath.Join(work, tool.DataDirName, "tasks"))
		}},
		{"relative plans and tasks links", func(t *testing.T, work, outside string) {
			link(t, "../../"+filepath.Base(outside), filepath.Join(work, tool.DataDirName, "plans"))
			link(t, "../../"+filepath.Base(outside), filepath.Join(work, tool.DataDirName, "tasks"))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			work, outside := gitWorkdir(t)
			c.plant(t, work, outside)
			base := PlanBase(work, t.TempDir())
			w := NewFilePlanWriter(base, "session-1234", now)
			if err := w.Write(planTodos); err == nil {
				t.Error("the plan file was written through the link")
			}
			if dir, err := CreateTaskDir(base, Plan{Title: "x", Steps: []string{"a"}}, planTodos, now); err == nil {
				t.Errorf("the task directory %s was created through the link", dir)
			}
			if err := NewTodoFileWriter(filepath.Join(base, "tasks", "1-x"), "x").Write(planTodos); err == nil {
				t.Error("TODO.md was written through the link")
			}
			emptyDir(t, outside)
		})
	}
}

// A plan file planted as a link to a file outside is replaced, never
// written through; a link that stays inside the workdir is followed.
func TestPlanFileLinksInsideTheWorkdir(t *testing.T) {
	work, outside := gitWorkdir(t)
	now := time.Unix(1700000000, 0)
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("untouched"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := PlanBase(work, "")
	w := NewFilePlanWriter(base, "abcdefgh", now)
	link(t, victim, w.Path())
	if err := w.Write(planTodos); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "untouched" {
		t.Errorf("written through the link: %q", b)
	}
	if fi, err := os.Lstat(w.Path()); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("plan file: %v %v", fi, err)
	}

	work2, _ := gitWorkdir(t)
	if err := os.Mkdir(filepath.Join(work2, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	link(t, "notes", filepath.Join(work2, tool.DataDirName))
	dir, err := CreateTaskDir(PlanBase(work2, ""), Plan{Title: "t", Steps: []string{"a"}}, planTodos, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(work2, "notes", "tasks", filepath.Base(dir), PlanFileName)); err != nil {
		t.Errorf("a .harness9 link inside the workdir was not followed: %v", err)
	}
}
