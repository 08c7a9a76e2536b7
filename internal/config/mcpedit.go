package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/harness9/harness9/internal/lib/atomicfile"
	"github.com/harness9/harness9/internal/lib/names"
)

// `harness9 mcp add` and `mcp remove` change config.toml, a file the user
// edits: the change is made to the text, so every comment, blank line and
// order of the rest stays as the user wrote it. A server is added as
// [mcp_servers.NAME] tables at the end; removing one takes out its tables
// (and their comments), or its keys where they are written under
// [mcp_servers]. The result is parsed before it is written, and anything
// harness9 cannot change safely is refused with a message saying so.

// ValidServerName reports whether name can name an MCP server: letters,
// digits, '-' and '_' (it becomes part of tool names and of a TOML key).
func ValidServerName(name string) bool { return names.Valid(name, true, "_-") }

// ErrServerExists says a server of that name is already configured.
var ErrServerExists = errors.New("an MCP server of that name is already configured")

// AddMCPServer adds server name to the config file at path (created, mode
// 0600, when missing).
func AddMCPServer(path, name string, s MCPServer) error {
	if !ValidServerName(name) {
		return fmt.Errorf("%q cannot name an MCP server: use letters, digits, '-' and '_'", name)
	}
	if problem := checkMCPServer(s); problem != "" {
		return fmt.Errorf("MCP server %s: %s", name, problem)
	}
	data, existed, err := readConfigText(path)
	if err != nil {
		return err
	}
	before, err := decodeConfig(path, data)
	if err != nil {
		return fmt.Errorf("%w; fix it before adding a server", err)
	}
	if _, ok := before.MCPServers[name]; ok {
		return fmt.Errorf("%s: %w", name, ErrServerExists)
	}
	block, err := toml.Marshal(map[string]any{"mcp_servers": map[string]MCPServer{name: s}})
	if err != nil {
		return err
	}
	// The marshalled text opens with [mcp_servers], which the file may
	// already have; the server's own tables are enough.
	block = bytes.TrimPrefix(block, []byte("[mcp_servers]\n"))
	out := bytes.Clone(data)
	if len(out) > 0 {
		if !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, '\n')
		}
		out = append(out, '\n')
	}
	out = append(out, block...)
	after, err := decodeConfig(path, out)
	if err != nil {
		return fmt.Errorf("%s cannot take the server as it is written (%v); add it by hand", path, err)
	}
	if got, ok := after.MCPServers[name]; !ok || !reflect.DeepEqual(got, normalised(s)) || !sameOthers(before.MCPServers, after.MCPServers, name) {
		return fmt.Errorf("%s is written in a form harness9 cannot add to safely; add [mcp_servers.%s] by hand", path, name)
	}
	return writeConfigText(path, out, existed)
}

// RemoveMCPServer takes server name out of the config file at path. It
// reports whether the file had it.
func RemoveMCPServer(path, name string) (bool, error) {
	data, existed, err := readConfigText(path)
	if err != nil || !existed {
		return false, err
	}
	before, err := decodeConfig(path, data)
	if err != nil {
		return false, err
	}
	if _, ok := before.MCPServers[name]; !ok {
		return false, nil
	}
	out, err := removeServerText(data, name)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	after, err := decodeConfig(path, out)
	if _, still := after.MCPServers[name]; err != nil || still || !sameOthers(before.MCPServers, after.MCPServers, name) {
		return false, fmt.Errorf("%s writes [mcp_servers.%s] in a form harness9 cannot remove safely; remove it by hand", path, name)
	}
	return true, writeConfigText(path, out, true)
}

// normalised is s as it reads back from TOML (empty lists and maps are
// not written).
func normalised(s MCPServer) MCPServer {
	if len(s.Args) == 0 {
		s.Args = nil
	}
	if len(s.Env) == 0 {
		s.Env = nil
	}
	if len(s.Headers) == 0 {
		s.Headers = nil
	}
	if len(s.ReadOnlyTools) == 0 {
		s.ReadOnlyTools = nil
	}
	return s
}

// sameOthers reports whether a and b hold the same servers besides name.
func sameOthers(a, b map[string]MCPServer, name string) bool {
	count := func(m map[string]MCPServer) int {
		if _, ok := m[name]; ok {
			return len(m) - 1
		}
		return len(m)
	}
	if count(a) != count(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; k != name && (!ok || !reflect.DeepEqual(v, w)) {
			return false
		}
	}
	return true
}

func readConfigText(path string) (data []byte, existed bool, err error) {
	data, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("cannot read %s: %w", path, err)
	}
	return data, true, nil
}

// decodeConfig parses config text as Load does, strictly.
func decodeConfig(path string, data []byte) (file, error) {
	var f file
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return f, fmt.Errorf("%s:%d:%d: %s", path, row, col, decodeProblem(de))
		}
		return f, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// writeConfigText replaces the file atomically; a new one is the user's
// alone (it may come to hold header values).
func writeConfigText(path string, data []byte, existed bool) error {
	if !existed {
		return atomicfile.WritePrivateFile(path, data)
	}
	return atomicfile.WriteFile(path, data)
}

// tomlItem is one top-level expression of a TOML document, by lines.
type tomlItem struct {
	first, last int // 0-based lines
	kind        unstable.Kind
	path        []string // a table's name; a key's table and key; a comment's table
}

// tomlItems lists the expressions of data.
func tomlItems(data []byte) ([]tomlItem, error) {
	p := unstable.Parser{KeepComments: true}
	p.Reset(data)
	line := func(off uint32) int { return bytes.Count(data[:off], []byte("\n")) }
	var table []string
	var items []tomlItem
	for p.NextExpression() {
		n := p.Expression()
		switch n.Kind {
		case unstable.Comment:
			l := line(n.Raw.Offset)
			items = append(items, tomlItem{l, l, n.Kind, table})
		case unstable.Table, unstable.ArrayTable:
			keys, at := keyPath(n)
			table = keys
			items = append(items, tomlItem{line(at), line(at), n.Kind, keys})
		case unstable.KeyValue:
			keys, _ := keyPath(n)
			end := n.Raw.Offset + n.Raw.Length
			if end > n.Raw.Offset {
				end--
			}
			items = append(items, tomlItem{line(n.Raw.Offset), line(end), n.Kind, append(slices.Clip(table), keys...)})
		}
	}
	return items, p.Error()
}

// keyPath is the dotted key of a table or key-value node, and where it
// starts.
func keyPath(n *unstable.Node) ([]string, uint32) {
	var keys []string
	var at uint32
	it := n.Key()
	for i := 0; it.Next(); i++ {
		if i == 0 {
			at = it.Node().Raw.Offset
		}
		keys = append(keys, string(it.Node().Data))
	}
	return keys, at
}

// removeServerText deletes the lines of server name: its tables with
// what they hold, its keys, and the comments that belong to them (a
// comment run right above a table belongs to that table).
func removeServerText(data []byte, name string) ([]byte, error) {
	items, err := tomlItems(data)
	if err != nil {
		return nil, err
	}
	prefix := []string{"mcp_servers", name}
	own := make([]bool, len(items))
	for i, it := range items {
		own[i] = len(it.path) >= 2 && slices.Equal(it.path[:2], prefix)
		if it.kind == unstable.KeyValue && len(it.path) < 2 && len(it.path) > 0 && it.path[0] == "mcp_servers" {
			return nil, fmt.Errorf("the MCP servers are one inline table (mcp_servers = {...}); remove %s by hand", name)
		}
	}
	// Comments written right above a table (no blank line between) are
	// that table's.
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].kind != unstable.Table && items[i].kind != unstable.ArrayTable {
			continue
		}
		next := items[i].first
		for j := i - 1; j >= 0 && items[j].kind == unstable.Comment && items[j].last == next-1; j-- {
			own[j] = own[i]
			next = items[j].first
		}
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	drop := make([]bool, len(lines))
	for i, it := range items {
		if own[i] {
			for l := it.first; l <= it.last && l < len(lines); l++ {
				drop[l] = true
			}
		}
	}
	blank := func(l int) bool { return len(bytes.TrimSpace(lines[l])) == 0 }
	// Blank lines inside a dropped stretch go with it.
	for l := range lines {
		if !blank(l) || drop[l] {
			continue
		}
		prev, next := l-1, l+1
		for prev >= 0 && blank(prev) && !drop[prev] {
			prev--
		}
		for next < len(lines) && blank(next) && !drop[next] {
			next++
		}
		if prev >= 0 && drop[prev] && (next >= len(lines) || drop[next]) {
			drop[l] = true
		}
	}
	var out []byte
	lastBlank := true // no blank line at the top
	for l, text := range lines {
		if drop[l] {
			continue
		}
		b := blank(l)
		if b && lastBlank && l > 0 && drop[l-1] {
			continue // the cut would leave two blank lines
		}
		out = append(out, text...)
		lastBlank = b
	}
	// A server cut from the end leaves no blank lines behind it.
	for bytes.HasSuffix(out, []byte("\n\n")) && !bytes.HasSuffix(data, []byte("\n\n")) {
		out = out[:len(out)-1]
	}
	return out, nil
}

// ServerNames returns the names of the servers configured in the file at
// path, sorted.
func ServerNames(path string) ([]string, error) {
	data, _, err := readConfigText(path)
	if err != nil {
		return nil, err
	}
	f, err := decodeConfig(path, data)
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(f.MCPServers)), nil
}

// hasSecretLook reports whether a header looks like it carries a
// credential written out rather than read from a variable.
func hasSecretLook(key, value string) bool {
	k := strings.ToLower(key)
	return !strings.Contains(value, "${") &&
		(k == "authorization" || strings.Contains(k, "token") || strings.Contains(k, "key") || strings.Contains(k, "secret"))
}

// LiteralSecretHeaders names the headers of s whose values look like
// credentials written out in the file.
func LiteralSecretHeaders(s MCPServer) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		if hasSecretLook(k, s.Headers[k]) {
			out = append(out, k)
		}
	}
	return out
}
