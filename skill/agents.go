package skill

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/harness9/harness9/tool"
)

// AgentsFile is the project-notes file of the AGENTS.md convention.
const AgentsFile = "AGENTS.md"

// MemoryFiles are the project-notes files read for the system prompt, in
// order of preference: AGENTS.md is the source; CLAUDE.md and GEMINI.md are
// read when it is absent, since users switch tools and bring their notes.
var MemoryFiles = []string{AgentsFile, "CLAUDE.md", "GEMINI.md"}

// DefaultAgentsMax is the cap LoadAgentsMD and NestedAgentsHook use when
// given a non-positive max.
const DefaultAgentsMax = 32 << 10

// LoadAgentsMD returns the content of AGENTS.md at the root of the project
// workspace ws, capped at max bytes (DefaultAgentsMax when max <= 0) with a
// note when it was cut. It returns "" when there is no such file, it cannot
// be read, or ws is nil. The file is opened through ws: an AGENTS.md that
// is a symlink leading out of the workdir or into the workspace's deny list
// (~/.ssh ... when ws was given the home directory), or a FIFO, is not
// read, so it cannot put a key into the system prompt or hang the start.
func LoadAgentsMD(ws *tool.Workspace, max int) string {
	_, content := LoadMemory(ws, max)
	return content
}

// LoadMemory returns the first of MemoryFiles found at ws's root as a
// regular file, by name, with its content capped like LoadAgentsMD's. name
// is "" when there is none or ws is nil.
func LoadMemory(ws *tool.Workspace, max int) (name, content string) {
	if ws == nil {
		return "", ""
	}
	return LoadMemoryFrom(ws, max, MemoryFiles...)
}

// LoadUserAgentsMD returns the AGENTS.md of dir, a program's own data
// directory (the user's instructions for every project), capped like
// LoadAgentsMD's, or "". dir is opened as its own root, without a deny
// list: it is the user's file, not one the model named.
func LoadUserAgentsMD(dir string, max int) string {
	if dir == "" {
		return ""
	}
	ws, err := tool.NewWorkspace(dir, tool.WithHome(""))
	if err != nil {
		return ""
	}
	_, content := LoadMemoryFrom(ws, max, AgentsFile)
	return content
}

// LoadMemoryFrom is LoadMemory over an open workspace and the given file
// names, in order of preference.
func LoadMemoryFrom(ws *tool.Workspace, max int, names ...string) (name, content string) {
	for _, f := range names {
		if fi, err := ws.Stat(f); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		return f, readCapped(ws, f, max)
	}
	return "", ""
}

// readCapped reads the file at path (inside ws) for a prompt, capped at max.
func readCapped(ws *tool.Workspace, path string, max int) string {
	if max <= 0 {
		max = DefaultAgentsMax
	}
	// One byte more than max: the cut below looks at the byte after it.
	data, _, err := ws.ReadFile(path, int64(max)+1)
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
	if fi, err := ws.Stat(path); err == nil {
		size = fmt.Sprint(fi.Size())
	}
	return strings.TrimSpace(string(data[:cut])) +
		fmt.Sprintf("\n\n[%s truncated: showing the first %d of %s bytes]", filepath.Base(path), cut, size)
}

// NearestAgentsMD returns the AGENTS.md nearest to path (a file, relative to
// ws's root or absolute): the first found walking from the directory the
// file's path really leads to (symlinks followed, as the file tools follow
// them) up to and including the root. ok is false when there is none or
// path leads outside the workspace.
func NearestAgentsMD(ws *tool.Workspace, path string) (file string, ok bool) {
	file, _, ok = nearest(ws, path)
	return file, ok
}

// nearest finds the AGENTS.md nearest to path in ws; dir is its directory
// relative to the root ("." for the root).
func nearest(ws *tool.Workspace, path string) (file, dir string, ok bool) {
	if ws == nil || path == "" {
		return "", "", false
	}
	abs, err := ws.Resolve(path)
	if err != nil {
		return "", "", false
	}
	dir = ws.Rel(filepath.Dir(abs))
	if filepath.IsAbs(dir) {
		return "", "", false // path is the root itself
	}
	for {
		candidate := filepath.Join(dir, AgentsFile)
		if fi, err := ws.Stat(candidate); err == nil && fi.Mode().IsRegular() {
			return filepath.Join(ws.Root(), candidate), dir, true
		}
		if dir == "." {
			return "", "", false
		}
		dir = filepath.Dir(dir)
	}
}

// NestedAgentsHook returns a hook for the run loop to call after each tool
// call. When a successful call whose "path" argument names a file or
// directory (tools are known by their input, not their name) touches
// something below a subdirectory of ws's root holding its own AGENTS.md (the
// nearest one wins), that file's content, capped at max bytes, is appended to the
// result, once per AGENTS.md for the hook's lifetime (make one hook per
// session). The workdir's own AGENTS.md is never appended; it is in the
// system prompt already. The hook is safe for concurrent use.
func NestedAgentsHook(ws *tool.Workspace, max int) func(toolName string, input json.RawMessage, result *tool.Result) {
	var mu sync.Mutex
	shown := map[string]bool{}
	return func(toolName string, input json.RawMessage, result *tool.Result) {
		if ws == nil || result == nil || result.IsError {
			return
		}
		var in struct {
			Path string `json:"path"`
		}
		if json.Unmarshal(input, &in) != nil || in.Path == "" {
			return
		}
		file, dir, ok := nearest(ws, in.Path)
		if !ok || dir == "." {
			return
		}
		mu.Lock()
		if shown[file] {
			mu.Unlock()
			return
		}
		shown[file] = true
		mu.Unlock()
		content := readCapped(ws, file, max)
		if content == "" {
			return
		}
		result.Output += fmt.Sprintf("\n\n[AGENTS.md from %s]\n%s", filepath.ToSlash(dir), content)
	}
}
