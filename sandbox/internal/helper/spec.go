//go:build linux

package helper

import (
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
)

// Modes of the helper.
const (
	ModeExec      = "exec"      // namespaces: set up, then become the command
	ModeSupervise = "supervise" // no namespaces: fork the command, end its leftovers
	ModeProbe     = "probe"     // namespaces: map ids, mount /proc, exit 0
)

// Spec tells the helper what to do. It travels as the helper's first
// argument (Encode), followed by the command's path and argv.
type Spec struct {
	Mode    string
	Ruleset int // the Landlock ruleset's file descriptor, inherited
	// Env is the inherited file descriptor of a file holding the command's
	// environment (NUL-terminated entries), 0 for none. The helper itself
	// runs with an empty one: it runs before the command is confined, and
	// the command's environment (an MCP server's from a project's
	// .mcp.json) could name a library for the dynamic loader to preload.
	Env int
	// Lifeline is the inherited file descriptor of the read end of a pipe
	// whose write end only the harness holds (0 for none): it reads end of
	// file once the harness is gone, however it ended (SIGKILL, a crash,
	// the OOM killer), and then the command and everything it started end
	// too, instead of living on without anyone to stop them.
	Lifeline int
	Restrict uint32 // landlock_restrict_self flags
	Proc     bool   // grant reading the fresh /proc
	// UID and GID, when UID >= 0, are a user's ids, which the helper maps
	// to themselves in its new user namespace.
	UID, GID int
	Keep     []uint // capabilities the command keeps (root)
	Filter   []byte // the seccomp filter: struct sock_filter entries, as the kernel reads them
	Limits   Limits
}

// Limits are the resource limits as the kernel takes them; 0 is none.
type Limits struct {
	Processes, FileSize, CPUSeconds uint64
	// Above counts Processes above the tasks the machine runs when the
	// command starts (no user namespace: RLIMIT_NPROC counts all the
	// user's tasks).
	Above bool
}

// Encode writes s as one argument: key=value pairs separated by ";".
func (s Spec) Encode() string {
	keep := make([]string, len(s.Keep))
	for i, c := range s.Keep {
		keep[i] = strconv.FormatUint(uint64(c), 10)
	}
	kv := []string{
		"mode=" + s.Mode,
		"ruleset=" + strconv.Itoa(s.Ruleset),
		"env=" + strconv.Itoa(s.Env),
		"lifeline=" + strconv.Itoa(s.Lifeline),
		"restrict=" + strconv.FormatUint(uint64(s.Restrict), 10),
		"proc=" + strconv.FormatBool(s.Proc),
		"uid=" + strconv.Itoa(s.UID),
		"gid=" + strconv.Itoa(s.GID),
		"keep=" + strings.Join(keep, ","),
		"filter=" + hex.EncodeToString(s.Filter),
		"nproc=" + strconv.FormatUint(s.Limits.Processes, 10),
		"fsize=" + strconv.FormatUint(s.Limits.FileSize, 10),
		"cpu=" + strconv.FormatUint(s.Limits.CPUSeconds, 10),
		"above=" + strconv.FormatBool(s.Limits.Above),
	}
	return strings.Join(kv, ";")
}

// Decode reads what Encode wrote.
func Decode(arg string) (Spec, error) {
	s := Spec{UID: -1, GID: -1}
	for _, kv := range strings.Split(arg, ";") {
		k, v, _ := strings.Cut(kv, "=")
		var err error
		switch k {
		case "mode":
			s.Mode = v
		case "ruleset":
			s.Ruleset, err = strconv.Atoi(v)
		case "env":
			s.Env, err = strconv.Atoi(v)
		case "lifeline":
			s.Lifeline, err = strconv.Atoi(v)
		case "restrict":
			var n uint64
			n, err = strconv.ParseUint(v, 10, 32)
			s.Restrict = uint32(n)
		case "proc":
			s.Proc, err = strconv.ParseBool(v)
		case "uid":
			s.UID, err = strconv.Atoi(v)
		case "gid":
			s.GID, err = strconv.Atoi(v)
		case "keep":
			for _, c := range strings.Split(v, ",") {
				if c == "" {
					continue
				}
				var n uint64
				if n, err = strconv.ParseUint(c, 10, 8); err == nil {
					s.Keep = append(s.Keep, uint(n))
				}
			}
		case "filter":
			s.Filter, err = hex.DecodeString(v)
		case "nproc":
			s.Limits.Processes, err = strconv.ParseUint(v, 10, 64)
		case "fsize":
			s.Limits.FileSize, err = strconv.ParseUint(v, 10, 64)
		case "cpu":
			s.Limits.CPUSeconds, err = strconv.ParseUint(v, 10, 64)
		case "above":
			s.Limits.Above, err = strconv.ParseBool(v)
		}
		if err != nil {
			return s, errors.New("bad helper argument " + kv + ": " + err.Error())
		}
	}
	return s, nil
}

// lastFile is the highest file descriptor the harness passed on purpose.
func (s Spec) lastFile() int { return max(2, s.Ruleset, s.Env, s.Lifeline) }
