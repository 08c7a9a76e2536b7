package planning

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/harness9/harness9/internal/lib/atomicfile"
	"github.com/harness9/harness9/tool"
)

// Plan files on disk go next to the project when the workdir is a git
// repository (so they can be committed or ignored with it), else in the
// data directory the program chose, so a random directory is not littered.
// Each approved plan also gets a task directory: a stable PLAN.md and a live
// TODO.md.

const (
	// PlanFileName and TodoFileName are the files of a task directory.
	PlanFileName = "PLAN.md"
	TodoFileName = "TODO.md"

	maxSlug         = 48
	maxTaskDirTries = 1000
)

// PlanBase returns the directory plans and tasks are written under:
// <workdir>/.harness9 when <workdir>/.git exists (a directory, or a file as in
// worktrees and submodules), else home (the data directory the program
// chose, e.g. harness9's CLI's) with its symlinks resolved.
//
// Every plan file is written beneath the base's parent directory (an
// os.Root), so a .harness9, plans/ or tasks/ symlink planted in a repository
// cannot send a plan file outside the workdir: see openBase. Home is
// resolved here because it is the user's own setting, and a link there is
// meant to be followed.
func PlanBase(workdir, home string) string {
	if _, err := os.Stat(filepath.Join(workdir, ".git")); err == nil {
		return filepath.Join(workdir, tool.DataDirName)
	}
	if real, err := filepath.EvalSymlinks(home); err == nil {
		return real
	}
	return home
}

// openBase opens base as an os.Root, creating it when missing. base is
// opened beneath its parent directory: for <workdir>/.harness9 that is the
// workdir, so a .harness9 symlink leading out of it is refused (a symlink
// to a directory inside it is followed). Everything below base is then
// reached through the root: plans/ and tasks/ links cannot lead out of it.
func openBase(base string) (*os.Root, error) {
	parent, name := filepath.Dir(base), filepath.Base(base)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", parent, err)
	}
	pr, err := os.OpenRoot(parent)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", parent, err)
	}
	defer pr.Close()
	if err := pr.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("create %s: %w", base, err)
	}
	r, err := pr.OpenRoot(name)
	if err != nil {
		return nil, fmt.Errorf("open %s (it must be a directory inside %s, not a link leading out): %w", base, parent, err)
	}
	return r, nil
}

// writeInBase writes data to <base>/<rel> atomically, beneath base.
func writeInBase(base, rel string, data []byte) error {
	r, err := openBase(base)
	if err != nil {
		return err
	}
	defer r.Close()
	if _, err := atomicfile.Write(r, rel, data); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(base, rel), err)
	}
	return nil
}

// splitUnder splits path, two levels below a base (<base>/<dir>/<file>), into
// the base and the rest: the writers of this file only know paths of that
// shape, and the base is where their root is anchored.
func splitUnder(path string) (base, rel string) {
	dir := filepath.Dir(path)
	return filepath.Dir(dir), filepath.Join(filepath.Base(dir), filepath.Base(path))
}

// FilePlanWriter keeps a session's todo list as a markdown checklist in one
// file, rewritten on every Write. The path is fixed at construction.
type FilePlanWriter struct {
	path string
}

// NewFilePlanWriter returns the writer of <base>/plans/<unix>-<id[:8]>.md.
// Nothing is created until the first Write.
func NewFilePlanWriter(base, sessionID string, now time.Time) *FilePlanWriter {
	id := sanitizeID(sessionID)
	if len(id) > 8 {
		id = id[:8]
	}
	name := fmt.Sprintf("%d-%s.md", now.Unix(), id)
	return &FilePlanWriter{path: filepath.Join(base, "plans", name)}
}

// OpenFilePlanWriter returns a writer for a path saved earlier (in session
// state), so a resumed session keeps rewriting the same file.
func OpenFilePlanWriter(path string) *FilePlanWriter { return &FilePlanWriter{path: path} }

// Path is the file the writer rewrites.
func (w *FilePlanWriter) Path() string { return w.path }

// Write replaces the file with the whole list as a checklist, creating the
// directories it needs, beneath the base (see PlanBase).
func (w *FilePlanWriter) Write(todos []TodoItem) error {
	base, rel := splitUnder(w.path)
	return writeInBase(base, rel, []byte(FormatChecklist("Plan", todos)))
}

// todoFileWriter rewrites a task directory's TODO.md.
type todoFileWriter struct {
	path, title string
}

// NewTodoFileWriter returns a PlanWriter that rewrites <taskDir>/TODO.md with
// the live checklist, headed by the plan's title.
func NewTodoFileWriter(taskDir, title string) PlanWriter {
	return &todoFileWriter{path: filepath.Join(taskDir, TodoFileName), title: title}
}

func (w *todoFileWriter) Write(todos []TodoItem) error {
	// path is <base>/tasks/<name>/TODO.md: anchored at the base, like
	// CreateTaskDir, so a task directory swapped for a link cannot lead out.
	taskDir := filepath.Dir(w.path)
	base, rel := splitUnder(taskDir)
	return writeInBase(base, filepath.Join(rel, TodoFileName), []byte(FormatChecklist(w.title, todos)))
}

// CreateTaskDir creates <base>/tasks/<unix>-<slug>/ for an approved plan,
// with PLAN.md (title, content, numbered steps) and TODO.md (the checklist
// of todos), and returns its path. The slug comes from Slug(p.Title); when
// that directory already exists the name gets -2, -3, ... so two plans never
// share a directory.
func CreateTaskDir(base string, p Plan, todos []TodoItem, now time.Time) (string, error) {
	r, err := openBase(base)
	if err != nil {
		return "", err
	}
	defer r.Close()
	if err := r.MkdirAll("tasks", 0o755); err != nil {
		return "", fmt.Errorf("create the tasks directory: %w", err)
	}
	stem := fmt.Sprintf("%d-%s", now.Unix(), Slug(p.Title))
	var rel string
	for n := 1; ; n++ {
		if n > maxTaskDirTries {
			return "", fmt.Errorf("create a task directory for %q: %d names taken", p.Title, maxTaskDirTries)
		}
		name := stem
		if n > 1 {
			name += "-" + strconv.Itoa(n)
		}
		rel = filepath.Join("tasks", name)
		// Mkdir, not MkdirAll: an existing directory must be an error, so
		// two writers racing for one name cannot both get it.
		err := r.Mkdir(rel, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("create task directory: %w", err)
		}
	}
	dir := filepath.Join(base, rel)
	if _, err := atomicfile.Write(r, filepath.Join(rel, PlanFileName), []byte(FormatPlan(p))); err != nil {
		return "", fmt.Errorf("write %s: %w", filepath.Join(dir, PlanFileName), err)
	}
	if _, err := atomicfile.Write(r, filepath.Join(rel, TodoFileName), []byte(FormatChecklist(p.Title, todos))); err != nil {
		return "", fmt.Errorf("write %s: %w", filepath.Join(dir, TodoFileName), err)
	}
	return dir, nil
}

// FormatPlan renders a plan as markdown: the title, the content and the
// numbered steps.
func FormatPlan(p Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", oneLine(p.Title))
	if c := strings.TrimSpace(p.Content); c != "" {
		b.WriteString(c + "\n\n")
	}
	b.WriteString("## Steps\n\n")
	for i, s := range p.Steps {
		fmt.Fprintf(&b, "%d. %s\n", i+1, oneLine(s))
	}
	return b.String()
}

// FormatChecklist renders a todo list as a markdown checklist under a title:
// "- [ ]" pending, "- [>]" in progress, "- [x]" completed, "- [-]" cancelled.
func FormatChecklist(title string, todos []TodoItem) string {
	var b strings.Builder
	done, _, total := Progress(todos)
	fmt.Fprintf(&b, "# %s\n\n%d/%d completed\n\n", oneLine(title), done, total)
	for _, it := range todos {
		fmt.Fprintf(&b, "- [%s] %s\n", checkMark(it.Status), oneLine(it.Content))
	}
	return b.String()
}

func checkMark(s TodoStatus) string {
	switch s {
	case TodoInProgress:
		return ">"
	case TodoCompleted:
		return "x"
	case TodoCancelled:
		return "-"
	}
	return " "
}

// oneLine keeps a model-written string on one markdown line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Slug turns a model-written title into a directory-name fragment: lower-case
// ASCII letters, digits and single dashes, at most 48 bytes, never empty
// ("plan" when nothing is left). Dots and separators cannot survive, so a
// slug can never be "..", contain "/" or escape the tasks directory.
func Slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
			continue
		}
		if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= maxSlug {
			break
		}
	}
	s := b.String()
	if len(s) > maxSlug {
		s = s[:maxSlug]
	}
	s = strings.Trim(s, "-")
	if s == "" {
		return "plan"
	}
	return s
}

// sanitizeID keeps the characters of a session id that are safe in a file
// name.
func sanitizeID(id string) string {
	var b strings.Builder
	for _, r := range id {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "session"
	}
	return b.String()
}
