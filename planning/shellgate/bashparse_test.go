package shellgate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	"mvdan.cc/sh/v3/syntax"
)

// bash's own reading of a command, for the differential property: bash
// defines a function whose body is the command and prints it back with
// declare -f. Defining a function runs nothing — unless bash and the gate's
// parser disagree about where the body ends, which is what this looks for —
// so bash runs in a helper process confined by Landlock: read-only, no
// network, no signals outside itself. Without Landlock the property is not
// checked.

const bashHelperEnv = "SHELLGATE_BASH_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(bashHelperEnv) == "1" {
		os.Exit(bashHelper())
	}
	os.Exit(m.Run())
}

type bashRequest struct{ Script string }

type bashReply struct {
	Out  string
	Code int
}

// bashHelper confines itself and runs bash for every request on stdin.
func bashHelper() int {
	if err := landlock.V6.Restrict(landlock.RODirs("/"), landlock.RWFiles("/dev/null")); err != nil {
		fmt.Fprintln(os.Stderr, "landlock:", err)
		return 3
	}
	dec, enc := json.NewDecoder(os.Stdin), json.NewEncoder(os.Stdout)
	for {
		var req bashRequest
		if err := dec.Decode(&req); err != nil {
			return 0
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		cmd := exec.CommandContext(ctx, "bash", "--norc", "--noprofile", "-c", req.Script)
		cmd.Dir = "/"
		cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8"}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, io.Discard
		err := cmd.Run()
		cancel()
		code := 0
		if err != nil {
			code = -1
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			}
		}
		if enc.Encode(bashReply{Out: out.String(), Code: code}) != nil {
			return 0
		}
	}
}

var bashParser struct {
	once sync.Once
	mu   sync.Mutex
	enc  *json.Encoder
	dec  *json.Decoder
	err  error
}

// confinedBash starts the helper once and reports whether it confined
// itself.
func confinedBash() error {
	p := &bashParser
	p.once.Do(func() {
		if _, err := exec.LookPath("bash"); err != nil {
			p.err = err
			return
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), bashHelperEnv+"=1")
		in, err := cmd.StdinPipe()
		if err != nil {
			p.err = err
			return
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			p.err = err
			return
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			p.err = err
			return
		}
		p.enc, p.dec = json.NewEncoder(in), json.NewDecoder(out)
		// A first request proves the helper could confine itself.
		var r bashReply
		if p.enc.Encode(bashRequest{Script: "true"}) != nil || p.dec.Decode(&r) != nil {
			_ = cmd.Wait()
			p.err = fmt.Errorf("no confined bash: %s", strings.TrimSpace(stderr.String()))
		}
	})
	return p.err
}

// bashReads returns bash's reading of command as declare -f prints it;
// ok is false when bash failed.
func bashReads(command string) (body string, ok bool, err error) {
	if err := confinedBash(); err != nil {
		return "", false, err
	}
	p := &bashParser
	p.mu.Lock()
	defer p.mu.Unlock()
	var r bashReply
	// The : keeps the body from being empty (a command of comments only).
	script := "f() {\n:\n" + command + "\n}\ndeclare -f f\n"
	if err := p.enc.Encode(bashRequest{Script: script}); err != nil {
		return "", false, err
	}
	if err := p.dec.Decode(&r); err != nil {
		return "", false, err
	}
	return r.Out, r.Code == 0, nil
}

// skeleton is what two readings of a command must agree on: every simple
// command with its number of words, every redirection and substitution, in
// order.
func skeleton(node syntax.Node) []string {
	var s []string
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				s = append(s, fmt.Sprintf("%s/%d", printNode(n.Args[0]), len(n.Args)))
			}
		case *syntax.Redirect:
			if n.Op != syntax.DplOut && n.Op != syntax.DplIn { // bash prints |& as 2>&1 |, <&- as 0>&-
				s = append(s, n.Op.String())
			}
		case *syntax.CmdSubst:
			s = append(s, "$()")
		case *syntax.ProcSubst:
			s = append(s, n.Op.String())
		}
		return true
	})
	return s
}

// checkBashAgrees fails when bash reads an accepted command differently
// from the gate: a body it cannot define, or a different skeleton.
func checkBashAgrees(t *testing.T, command string) {
	t.Helper()
	out, ok, err := bashReads(command)
	if err != nil {
		t.Skipf("bash's reading is not checked: %v", err)
	}
	if !ok {
		t.Fatalf("Check accepted %q, which bash cannot define as a function body: %q", command, out)
	}
	parser := syntax.NewParser(syntax.Variant(syntax.LangBash))
	bashFile, err := parser.Parse(strings.NewReader(out), "")
	if err != nil || len(bashFile.Stmts) != 1 {
		t.Fatalf("Check accepted %q; bash printed %q, which does not parse: %v", command, out, err)
	}
	fn, ok := bashFile.Stmts[0].Cmd.(*syntax.FuncDecl)
	if !ok {
		t.Fatalf("Check accepted %q; bash printed %q", command, out)
	}
	gateFile, err := parser.Parse(strings.NewReader(command), "")
	if err != nil {
		t.Fatal(err)
	}
	want, got := skeleton(gateFile), skeleton(fn.Body)
	if len(got) > 0 && got[0] == ":/1" {
		got = got[1:]
	}
	if strings.Join(want, " ") != strings.Join(got, " ") {
		t.Fatalf("Check accepted %q, but bash reads it differently:\n gate: %q\n bash: %q (%q)", command, want, got, out)
	}
}

func TestBashReadsAcceptedCommandsAlike(t *testing.T) {
	if err := confinedBash(); err != nil {
		t.Skipf("no confined bash: %v", err)
	}
	var accepted []string
	accepted = append(accepted, legitimate...)
	for _, a := range append(allowedCommands, fuzzSeeds...) {
		if Check(a) == nil {
			accepted = append(accepted, a)
		}
	}
	for _, cmd := range accepted {
		t.Run("", func(t *testing.T) { checkBashAgrees(t, cmd) })
	}
}
