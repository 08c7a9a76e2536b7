// Package eval runs a suite of tasks against the assembled agent (package
// harness) and checks the result of each: the same engine, sandbox and
// session store the harness9 program runs in, so what an eval measures is
// what a user gets. A task is a directory with an instruction, a fixture
// copied fresh for every run, optional setup commands and a check command
// whose exit code decides pass or fail. Runs are recorded one JSON line
// each (Record) so an interrupted eval resumes where it stopped, and
// Summarize and Compare turn records into the numbers that say whether
// planning helps, with which model, at what cost.
package eval

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"
)

// FormatVersion is the version of task.toml this package reads. A task
// that names a later version is refused rather than half understood.
const FormatVersion = 1

// Defaults for a task that does not say.
const (
	DefaultTimeout      = 10 * time.Minute
	DefaultCheckTimeout = 2 * time.Minute
	DefaultMaxTurns     = 50
)

// Task is one task of a suite.
type Task struct {
	// Name is the task directory's base name; it identifies the task in
	// records.
	Name string
	// Dir is the task directory.
	Dir string
	// Instruction is the prompt the agent is given.
	Instruction string
	// Fixture is the directory copied as the run's workdir ("" starts
	// from an empty directory).
	Fixture string
	// Repo and Commit, when Repo is set, make the workdir a clone of the
	// git repository Repo (a path or URL) checked out at Commit; Fixture,
	// if also given, is copied over it.
	Repo, Commit string
	// Setup are shell commands run in the workdir before the agent, in
	// the sandbox; a failing one fails the run without asking the model.
	Setup []string
	// Check is the shell command run in the workdir after the agent, in
	// the sandbox; exit status 0 is a pass.
	Check string
	// TestsDir, when set, is copied next to the workdir after the agent
	// finished and named to Check in $TEST_DIR (Terminal-Bench's tests/):
	// the agent never sees the tests.
	TestsDir     string
	Timeout      time.Duration
	CheckTimeout time.Duration
	MaxTurns     int
	Tags         []string
}

// taskFile is task.toml.
type taskFile struct {
	Version      int      `toml:"version"`
	Instruction  string   `toml:"instruction"`
	Fixture      *string  `toml:"fixture"`
	Repo         string   `toml:"repo"`
	Commit       string   `toml:"commit"`
	Setup        []string `toml:"setup"`
	Check        string   `toml:"check"`
	TimeoutSec   float64  `toml:"timeout_sec"`
	CheckTimeout float64  `toml:"check_timeout_sec"`
	MaxTurns     int      `toml:"max_turns"`
	Tags         []string `toml:"tags"`
}

// tbTask is the part of Terminal-Bench's task.yaml that has a meaning
// without Docker. The Dockerfile, docker-compose.yaml, parser_name,
// run_tests_in_same_shell, difficulty, category, author and time
// estimates are ignored: the workdir starts empty and the check is
// run-tests.sh.
type tbTask struct {
	Instruction  string   `yaml:"instruction"`
	Tags         []string `yaml:"tags"`
	AgentTimeout float64  `yaml:"max_agent_timeout_sec"`
	TestTimeout  float64  `yaml:"max_test_timeout_sec"`
}

// LoadSuite reads every task of the suite directory dir: each
// subdirectory holding task.toml (or Terminal-Bench's task.yaml), in name
// order. Problems of all tasks are reported together.
func LoadSuite(dir string) ([]*Task, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the suite: %w", err)
	}
	var tasks []*Task
	var problems []error
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		t, err := LoadTask(filepath.Join(dir, e.Name()))
		if errors.Is(err, errNoTask) {
			continue
		}
		if err != nil {
			problems = append(problems, err)
			continue
		}
		tasks = append(tasks, t)
	}
	if err := errors.Join(problems...); err != nil {
		return nil, err
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("%s holds no task: each task is a directory with a task.toml (or task.yaml)", dir)
	}
	return tasks, nil
}

var errNoTask = errors.New("no task file")

// LoadTask reads the task of directory dir.
func LoadTask(dir string) (*Task, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	t := &Task{Name: filepath.Base(abs), Dir: abs, Timeout: DefaultTimeout, CheckTimeout: DefaultCheckTimeout, MaxTurns: DefaultMaxTurns}
	if b, err := os.ReadFile(filepath.Join(abs, "task.toml")); err == nil {
		err = t.fromTOML(b)
		return t, wrapTask(abs, "task.toml", err)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if b, err := os.ReadFile(filepath.Join(abs, "task.yaml")); err == nil {
		err = t.fromTerminalBench(b)
		return t, wrapTask(abs, "task.yaml", err)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return nil, errNoTask
}

func wrapTask(dir, file string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("task %s: %s: %w", filepath.Base(dir), file, err)
}

func (t *Task) fromTOML(b []byte) error {
	var f taskFile
	dec := toml.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return err
	}
	switch {
	case f.Version == 0:
		return fmt.Errorf("version is missing (write version = %d)", FormatVersion)
	case f.Version > FormatVersion:
		return fmt.Errorf("version %d is newer than this harness9 reads (%d); update harness9", f.Version, FormatVersion)
	case strings.TrimSpace(f.Instruction) == "":
		return errors.New("instruction is empty")
	case strings.TrimSpace(f.Check) == "":
		return errors.New("check is empty: give the command whose exit status decides pass or fail")
	case f.TimeoutSec < 0 || f.CheckTimeout < 0 || f.MaxTurns < 0:
		return errors.New("timeout_sec, check_timeout_sec and max_turns must not be negative")
	case f.Commit != "" && f.Repo == "":
		return errors.New("commit needs repo")
	}
	t.Instruction, t.Setup, t.Check, t.Tags = f.Instruction, f.Setup, f.Check, f.Tags
	t.Repo, t.Commit = f.Repo, f.Commit
	if t.Repo != "" && !strings.Contains(t.Repo, "://") && !filepath.IsAbs(t.Repo) {
		if _, err := os.Stat(filepath.Join(t.Dir, t.Repo)); err == nil {
			t.Repo = filepath.Join(t.Dir, t.Repo)
		}
	}
	if err := t.setFixture(f.Fixture); err != nil {
		return err
	}
	if f.TimeoutSec > 0 {
		t.Timeout = seconds(f.TimeoutSec)
	}
	if f.CheckTimeout > 0 {
		t.CheckTimeout = seconds(f.CheckTimeout)
	}
	if f.MaxTurns > 0 {
		t.MaxTurns = f.MaxTurns
	}
	return nil
}

// setFixture resolves the fixture directory: the one named, else
// "fixture" when the task has one.
func (t *Task) setFixture(name *string) error {
	if name == nil {
		if st, err := os.Stat(filepath.Join(t.Dir, "fixture")); err == nil && st.IsDir() {
			t.Fixture = filepath.Join(t.Dir, "fixture")
		}
		return nil
	}
	if *name == "" {
		return nil
	}
	p := filepath.Join(t.Dir, *name)
	if !filepath.IsLocal(*name) {
		return fmt.Errorf("fixture %q must be a directory inside the task", *name)
	}
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		return fmt.Errorf("fixture %q is not a directory of the task", *name)
	}
	t.Fixture = p
	return nil
}

func (t *Task) fromTerminalBench(b []byte) error {
	var f tbTask
	if err := yaml.Unmarshal(b, &f); err != nil {
		return err
	}
	if strings.TrimSpace(f.Instruction) == "" {
		return errors.New("instruction is empty")
	}
	if _, err := os.Stat(filepath.Join(t.Dir, "run-tests.sh")); err != nil {
		return errors.New("run-tests.sh is missing: it is the check of a Terminal-Bench task")
	}
	t.Instruction, t.Tags = f.Instruction, f.Tags
	t.Check = "bash " + shellQuote(filepath.Join(t.Dir, "run-tests.sh"))
	if st, err := os.Stat(filepath.Join(t.Dir, "tests")); err == nil && st.IsDir() {
		t.TestsDir = filepath.Join(t.Dir, "tests")
	}
	if f.AgentTimeout > 0 {
		t.Timeout = seconds(f.AgentTimeout)
	}
	if f.TestTimeout > 0 {
		t.CheckTimeout = seconds(f.TestTimeout)
	}
	return t.setFixture(nil)
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// HasTag reports whether the task carries one of tags (any task when tags
// is empty).
func (t *Task) HasTag(tags []string) bool {
	if len(tags) == 0 {
		return true
	}
	for _, tag := range tags {
		if slices.Contains(t.Tags, tag) {
			return true
		}
	}
	return false
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
