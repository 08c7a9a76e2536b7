package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/harness9/harness9/internal/lib/atomicfile"
	"github.com/harness9/harness9/tool/mcptool"
)

// ProjectMCPFile is the project's MCP servers file, shared with other
// agents: {"mcpServers": {name: config}}.
const ProjectMCPFile = ".mcp.json"

// member is one key of a JSON object, its value as written.
type member struct {
	key   string
	value json.RawMessage
}

// AddProjectMCP adds server name to the workdir's .mcp.json (created when
// missing). The file's other keys and servers keep their order and values.
func AddProjectMCP(workdir, name string, s mcptool.ServerConfig) error {
	if !ValidServerName(name) {
		return fmt.Errorf("%q cannot name an MCP server: use letters, digits, '-' and '_'", name)
	}
	path := filepath.Join(workdir, ProjectMCPFile)
	top, servers, err := readMCPJSON(path)
	if err != nil {
		return err
	}
	for _, m := range servers {
		if m.key == name {
			return fmt.Errorf("%s in %s: %w", name, path, ErrServerExists)
		}
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return writeMCPJSON(path, top, append(servers, member{name, raw}))
}

// RemoveProjectMCP takes server name out of the workdir's .mcp.json and
// reports whether it was there.
func RemoveProjectMCP(workdir, name string) (bool, error) {
	path := filepath.Join(workdir, ProjectMCPFile)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	top, servers, err := readMCPJSON(path)
	if err != nil {
		return false, err
	}
	for i, m := range servers {
		if m.key == name {
			return true, writeMCPJSON(path, top, append(servers[:i:i], servers[i+1:]...))
		}
	}
	return false, nil
}

// readMCPJSON reads the file's top-level members and its servers, in
// order; a missing file has neither.
func readMCPJSON(path string) (top, servers []member, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	if top, err = members(data); err != nil {
		return nil, nil, fmt.Errorf("%s is not a JSON object: %w; fix it first", path, err)
	}
	for _, m := range top {
		if m.key == "mcpServers" {
			if servers, err = members(m.value); err != nil {
				return nil, nil, fmt.Errorf("%s: mcpServers is not an object: %w", path, err)
			}
		}
	}
	return top, servers, nil
}

// members splits a JSON object into its members, in order.
func members(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("no object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the object")
	}
	return out, nil
}

// writeMCPJSON writes top with its mcpServers replaced by servers,
// indented by two spaces.
func writeMCPJSON(path string, top, servers []member) error {
	inner := object(servers)
	found := false
	for i := range top {
		if top[i].key == "mcpServers" {
			top[i].value, found = inner, true
		}
	}
	if !found {
		top = append(top, member{"mcpServers", inner})
	}
	var out bytes.Buffer
	if err := json.Indent(&out, object(top), "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	return atomicfile.WriteFile(path, out.Bytes())
}

// object is the JSON object of ms, in their order.
func object(ms []member) []byte {
	var b bytes.Buffer
	b.WriteString("{")
	for i, m := range ms {
		if i > 0 {
			b.WriteString(",")
		}
		k, _ := json.Marshal(m.key)
		fmt.Fprintf(&b, "%s:%s", k, m.value)
	}
	b.WriteString("}")
	return b.Bytes()
}
