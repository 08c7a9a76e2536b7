// Package trust keeps the user's decision about each project: whether the
// things a repository can make harness9 run or widen (the MCP servers of
// its .mcp.json, the hooks of its .harness9/config.toml) may take effect.
//
// A cloned repository must not run commands by being opened, so a project
// is untrusted until the user says otherwise. The decision is stored in
// the user's data directory, keyed by the workdir's real path, never in
// the project, together with a hash of the files it covered: a change to
// them (a pull, or the agent writing them) makes the project ask again.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/harness9/harness9/internal/lib/atomicfile"
	"github.com/harness9/harness9/tool"
)

// File is the name of the decisions file in the data directory.
const File = "trust.json"

// CoveredFiles are the project files, relative to the workdir, whose
// content a decision covers.
var CoveredFiles = []string{".mcp.json", filepath.Join(tool.DataDirName, "config.toml")}

// Item is one thing a project would enable once trusted, as the user is
// shown it before deciding.
type Item struct {
	Kind   string // "MCP server", "hook"
	Name   string
	Detail string // the command line, or the URL, exactly as it would run
}

func (i Item) String() string {
	return fmt.Sprintf("%s %s: %s", i.Kind, i.Name, i.Detail)
}

// Manifest is what a project asks to be trusted for.
type Manifest struct {
	Items []Item
	// Hash covers the content of every CoveredFiles entry (absent files
	// included, as absent).
	Hash string
}

// Empty reports whether the project asks for nothing.
func (m Manifest) Empty() bool { return len(m.Items) == 0 }

// HashFiles hashes the covered files of workdir.
func HashFiles(workdir string) string {
	h := sha256.New()
	for _, name := range CoveredFiles {
		b, err := os.ReadFile(filepath.Join(workdir, name))
		fmt.Fprintf(h, "%s\x00%t\x00%d\x00", name, err == nil, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Decision is the user's answer for a project.
type Decision string

const (
	// Unknown: never asked, or asked about different files.
	Unknown Decision = ""
	// Trusted: the project's servers and hooks may run.
	Trusted Decision = "trusted"
	// Declined: the user said no; do not ask again until the files change.
	Declined Decision = "declined"
)

// Entry is the stored decision for one project.
type Entry struct {
	Decision  Decision  `json:"decision"`
	DecidedAt time.Time `json:"decided_at"`
	Hash      string    `json:"files_sha256"`
}

// State is a project's standing now.
type State struct {
	Decision Decision
	// Changed: a decision exists but the covered files changed since, so
	// it no longer applies (Decision is then Unknown).
	Changed bool
}

// Trusted reports whether the project's servers and hooks may run.
func (s State) Trusted() bool { return s.Decision == Trusted }

// Why says, for the person reading a warning, why an untrusted project is
// untrusted.
func (s State) Why() string {
	switch {
	case s.Changed:
		return "its .mcp.json or " + tool.DataDirName + "/config.toml changed since you decided"
	case s.Decision == Declined:
		return "you declined to trust this project"
	case s.Decision == Trusted:
		return "trusted"
	}
	return "the project is not trusted"
}

// Store reads and writes the decisions file of one data directory.
type Store struct{ home string }

// NewStore returns the store kept in the data directory home.
func NewStore(home string) Store { return Store{home: home} }

// Path is the decisions file.
func (s Store) Path() string { return filepath.Join(s.home, File) }

type record struct {
	Projects map[string]Entry `json:"projects"`
}

func (s Store) load() (record, error) {
	rec := record{Projects: map[string]Entry{}}
	b, err := os.ReadFile(s.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return rec, fmt.Errorf("reading the trusted projects: %w", err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, fmt.Errorf("%s is not valid JSON (move it aside to start over): %w", s.Path(), err)
	}
	if rec.Projects == nil {
		rec.Projects = map[string]Entry{}
	}
	return rec, nil
}

func (s Store) save(rec record) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.home, 0o700); err != nil {
		return fmt.Errorf("creating the data directory: %w", err)
	}
	root, err := os.OpenRoot(s.home)
	if err != nil {
		return err
	}
	defer root.Close()
	if _, err := atomicfile.Write(root, File, append(b, '\n')); err != nil {
		return fmt.Errorf("saving the trusted projects in %s: %w", s.Path(), err)
	}
	return nil
}

// State returns the standing of workdir whose covered files hash to hash.
// An unreadable decisions file counts as untrusted and is returned as the
// error.
func (s Store) State(workdir, hash string) (State, error) {
	rec, err := s.load()
	if err != nil {
		return State{}, err
	}
	e, ok := rec.Projects[workdir]
	switch {
	case !ok:
		return State{}, nil
	case e.Hash != hash:
		return State{Changed: true}, nil
	}
	return State{Decision: e.Decision}, nil
}

// Decide records d for workdir as its covered files hash now.
func (s Store) Decide(workdir string, d Decision, hash string, now time.Time) error {
	rec, err := s.load()
	if err != nil {
		return err
	}
	rec.Projects[workdir] = Entry{Decision: d, DecidedAt: now.UTC(), Hash: hash}
	return s.save(rec)
}

// Forget removes workdir's decision; it reports whether there was one.
func (s Store) Forget(workdir string) (bool, error) {
	rec, err := s.load()
	if err != nil {
		return false, err
	}
	if _, ok := rec.Projects[workdir]; !ok {
		return false, nil
	}
	delete(rec.Projects, workdir)
	return true, s.save(rec)
}

// Listed is one stored decision.
type Listed struct {
	Workdir string
	Entry
}

// List returns every stored decision, by workdir.
func (s Store) List() ([]Listed, error) {
	rec, err := s.load()
	if err != nil {
		return nil, err
	}
	out := make([]Listed, 0, len(rec.Projects))
	for d, e := range rec.Projects {
		out = append(out, Listed{Workdir: d, Entry: e})
	}
	slices.SortFunc(out, func(a, b Listed) int { return strings.Compare(a.Workdir, b.Workdir) })
	return out, nil
}
