package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/harness9/harness9/llm"
)

// Mode is how a task is run: Plan (the model plans in Plan Mode, the plan
// is approved automatically and executed to the end) or Direct (the
// model works in Default mode from the start).
type Mode string

// The modes.
const (
	Plan   Mode = "plan"
	Direct Mode = "direct"
)

// Config is one configuration under comparison: a mode and a model.
type Config struct {
	Mode  Mode   `json:"mode"`
	Model string `json:"model"`
}

// String is the configuration's label in tables and selectors:
// "plan scripted/task".
func (c Config) String() string { return string(c.Mode) + " " + c.Model }

// Record is what one run of one task under one configuration did. It is
// one line of a results file (Type "run").
type Record struct {
	Type    string   `json:"type"`
	Task    string   `json:"task"`
	Mode    Mode     `json:"mode"`
	Model   string   `json:"model"`
	Attempt int      `json:"attempt"` // 1..repeat
	Tags    []string `json:"tags,omitempty"`

	Pass bool `json:"pass"`
	// Status is how the agent's run ended (agent.RunStatus: completed,
	// stalled, max_turns, cancelled, error, awaiting_approval).
	Status   string `json:"status"`
	TimedOut bool   `json:"timed_out,omitempty"`
	// Error says why the run failed before or outside the check (a setup
	// command, the provider, the sandbox); the check is not run then.
	Error       string `json:"error,omitempty"`
	CheckExit   int    `json:"check_exit"`
	CheckOutput string `json:"check_output,omitempty"`

	Turns     int       `json:"turns"` // model calls
	Tokens    llm.Usage `json:"tokens"`
	Cost      float64   `json:"cost"` // US dollars at the configured price; 0 when unknown
	WallMS    int64     `json:"wall_ms"`
	ModelMS   int64     `json:"model_ms"` // time spent waiting for the model
	CheckMS   int64     `json:"check_ms"`
	ToolCalls int       `json:"tool_calls"`
	// ToolErrors counts tool results flagged as errors (refusals included).
	ToolErrors int `json:"tool_errors"`
	// Plans counts submitted plans; Refinements the plans submitted after
	// the first (a model that re-plans).
	Plans       int `json:"plans"`
	Refinements int `json:"refinements"`
	ExecRounds  int `json:"exec_rounds"`
	Stalls      int `json:"stalls"`
	// EvidenceRefusals counts todo_write calls the evidence gate refused
	// (an item marked completed with no work since the last update).
	EvidenceRefusals int `json:"evidence_refusals"`
	// SandboxRefusals counts calls a boundary of the harness stopped, as
	// the tools mark them (agent.ToolResult.Refused): a file tool given a
	// path outside the workdir, in the deny list or inside .git, and a
	// command whose changes to git's hooks or configuration the git guard
	// undid. What the kernel refuses inside a command (Landlock's EACCES,
	// seccomp's EPERM) reaches the command, not the harness, and is not
	// counted.
	SandboxRefusals int `json:"sandbox_refusals"`

	SessionID string `json:"session_id,omitempty"`
	// Dir is the run's directory, kept with WithKeep (the workdir is its
	// work/ subdirectory).
	Dir     string    `json:"dir,omitempty"`
	Started time.Time `json:"started"`
}

// Config returns the record's configuration.
func (r *Record) Config() Config { return Config{Mode: r.Mode, Model: r.Model} }

// key identifies a run for resuming.
func (r *Record) key() runKey { return runKey{r.Task, r.Mode, r.Model, r.Attempt} }

type runKey struct {
	task    string
	mode    Mode
	model   string
	attempt int
}

// ReadResults reads the run records of a results file. A last line cut
// short (a process killed while writing) is dropped; any other line that
// is not a record is an error.
func ReadResults(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	n := 0
	var bad error
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if bad != nil {
			return nil, bad // a bad line that was not the last
		}
		var r Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			bad = fmt.Errorf("%s line %d is not a run record: %w", path, n, err)
			continue
		}
		if r.Type == "run" {
			out = append(out, r)
		}
	}
	return out, sc.Err()
}

// Results is a results file open for appending: each finished run is
// written as one line at once, so an interruption loses only the runs
// that had not finished.
type Results struct {
	mu   sync.Mutex
	f    *os.File
	done map[runKey]Record
}

// OpenResults opens (or creates) the results file at path and reads the
// runs it already holds, which Run then skips. fresh empties it first.
func OpenResults(path string, fresh bool) (*Results, error) {
	res := &Results{done: map[runKey]Record{}}
	if !fresh {
		recs, err := ReadResults(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("reading the results to resume: %w (start afresh with --fresh)", err)
		}
		for _, r := range recs {
			res.done[r.key()] = r
		}
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if fresh {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return nil, err
	}
	if err := dropTornLine(f, path); err != nil {
		f.Close()
		return nil, err
	}
	res.f = f
	return res, nil
}

// dropTornLine cuts a last line without its newline (a run being written
// when the process was killed), so the next record starts a line.
func dropTornLine(f *os.File, path string) error {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 || b[len(b)-1] == '\n' {
		return err
	}
	return f.Truncate(int64(bytes.LastIndexByte(b, '\n') + 1))
}

// Done returns the records read when the file was opened.
func (r *Results) Done() []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Record, 0, len(r.done))
	for _, rec := range r.done {
		out = append(out, rec)
	}
	return out
}

func (r *Results) has(k runKey) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.done[k]
	return ok
}

// Append writes rec as one line.
func (r *Results) Append(rec Record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("writing the results: %w", err)
	}
	r.done[rec.key()] = rec
	return nil
}

// Close closes the file.
func (r *Results) Close() error { return r.f.Close() }
