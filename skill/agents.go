package skill

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/harness9/harness9/tool"
)

// AgentsFile is the project-notes file of the AGENTS.md convention.
const AgentsFile = "AGENTS.md"

// DefaultAgentsMax is the cap LoadAgentsMD and NestedAgentsHook use when
// given a non-positive max.
const DefaultAgentsMax = 32 << 10

// LoadAgentsMD returns the content of <workdir>/AGENTS.md, capped at max bytes
// (DefaultAgentsMax when max <= 0) with a note when it was cut. It returns ""
// when there is no such file or it cannot be read.
func LoadAgentsMD(workdir string, max int) string {
	return readCapped(filepath.Join(workdir, AgentsFile), max)
}

func readCapped(path string, max int) string {
	if max <= 0 {
		max = DefaultAgentsMax
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return ""
	}
	if len(data) <= max {
		return strings.TrimSpace(string(data))
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(data[cut]) {
		cut--
	}
	if nl := strings.LastIndexByte(string(data[:cut]), '\n'); nl > cut/2 {
		cut = nl // end on a whole line when that loses little
	}
	size := "more than " + fmt.Sprint(max)
	if fi, err := f.Stat(); err == nil {
		size = fmt.Sprint(fi.Size())
	}
	return strings.TrimSpace(string(data[:cut])) +
		fmt.Sprintf("\n\n[%s truncated: showing the first %d of %s bytes]", filepath.Base(path), cut, size)
}

// NearestAgentsMD returns the AGENTS.md nearest to path (a file, relative to
// workdir or absolute): the first found walking from the file's directory up
// to and including workdir. ok is false when there is none or path lies
// outside workdir.
func NearestAgentsMD(workdir, path string) (file string, ok bool) {
	root, dir, ok := locate(workdir, path)
	if !ok {
		return "", false
	}
	for {
		candidate := filepath.Join(dir, AgentsFile)
		if fi, err := os.Stat(candidate); err == nil && fi.Mode().IsRegular() {
			return candidate, true
		}
		if dir == root {
			return "", false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// locate returns the absolute workdir and the directory of path, spelled so
// that dir is root or below it; ok is false when path is outside workdir.
// Both the workdir as given and its symlink-resolved form are tried, since
// tools may report either.
func locate(workdir, path string) (root, dir string, ok bool) {
	if path == "" {
		return "", "", false
	}
	abs, err := filepath.Abs(workdir)
	if err != nil {
		return "", "", false
	}
	roots := []string{abs}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		roots = append(roots, real)
	}
	for _, r := range roots {
		p := path
		if !filepath.IsAbs(p) {
			p = filepath.Join(r, p)
		}
		d := filepath.Dir(filepath.Clean(p))
		if rel, err := filepath.Rel(r, d); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return r, d, true
		}
	}
	return "", "", false
}

// agentsHookTools are the tools whose "path" argument names a file the model
// is about to work on.
var agentsHookTools = map[string]bool{"read_file": true, "write_file": true, "edit_file": true}

// NestedAgentsHook returns a hook for the run loop to call after each tool
// call. When a successful read_file, write_file or edit_file call touches a
// file below a subdirectory of workdir holding its own AGENTS.md (the nearest
// one wins), that file's content, capped at max bytes, is appended to the
// result, once per AGENTS.md for the hook's lifetime (make one hook per
// session). The workdir's own AGENTS.md is never appended; it is in the
// system prompt already. The hook is safe for concurrent use.
func NestedAgentsHook(workdir string, max int) func(toolName string, input json.RawMessage, result *tool.Result) {
	var mu sync.Mutex
	shown := map[string]bool{}
	return func(toolName string, input json.RawMessage, result *tool.Result) {
		if !agentsHookTools[toolName] || result == nil || result.IsError {
			return
		}
		var in struct {
			Path string `json:"path"`
		}
		if json.Unmarshal(input, &in) != nil || in.Path == "" {
			return
		}
		file, ok := NearestAgentsMD(workdir, in.Path)
		if !ok {
			return
		}
		root, dir, _ := locate(workdir, file)
		if dir == root {
			return
		}
		mu.Lock()
		if shown[file] {
			mu.Unlock()
			return
		}
		shown[file] = true
		mu.Unlock()
		content := readCapped(file, max)
		if content == "" {
			return
		}
		rel := dir
		if r, err := filepath.Rel(root, dir); err == nil {
			rel = filepath.ToSlash(r)
		}
		result.Output += fmt.Sprintf("\n\n[AGENTS.md from %s]\n%s", rel, content)
	}
}
