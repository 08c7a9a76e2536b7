// Package docs holds the user documentation; its test runs every command the
// documentation shows.
//
// Each page (README.md and docs/*.md) is followed like a reader would: its
// ```sh blocks run in order, verbatim, as one shell session of a new user (a
// scratch home directory with a git repository to work in, harness9 on PATH,
// an OpenAI key set as the README's quick start says, nothing configured),
// and each block must exit 0; shell variables carry over from block to block. A block that
// builds harness9 (it names ./cmd/harness9 or runs go test on packages) runs
// in the source tree, the others in the scratch repository. Model providers
// are a local stand-in speaking the real wire (internal/fakemodel): the
// environment points OPENAI_BASE_URL and ANTHROPIC_BASE_URL at it, and a
// block that sets them itself reaches whatever it names. Blocks run in a
// terminal (tmux); whenever the TUI is in the foreground the test quits it
// with Ctrl+C, as a reader would. When the test runs as root, a page runs as
// an ordinary user (created with useradd), since that is who reads docs and
// some programs (initdb) refuse root, unless it builds harness9 from source.
//
// One exception: the README's set-up block names the test command, which is
// this test's own; the test checks that .ci/run runs exactly that line
// instead of running it again.
package docs

import (
	"bufio"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/harness9/harness9/internal/fakemodel"
)

// testCommand is the README's test command; .ci/run must run it verbatim.
const testCommand = "go test -race ./..."

// blockTimeout bounds one block; a block that hangs fails.
const blockTimeout = 10 * time.Minute

type block struct {
	page  string
	line  int
	lines []string
}

func (b block) String() string { return fmt.Sprintf("%s:%d", b.page, b.line) }

// builds tells whether the block builds or tests harness9 from source.
func (b block) builds() bool {
	for _, l := range b.lines {
		if strings.Contains(l, "./cmd/harness9") || strings.HasPrefix(strings.TrimSpace(l), "go test ") {
			return true
		}
	}
	return false
}

// shBlocks returns the ```sh blocks of a markdown file.
func shBlocks(t *testing.T, page string) []block {
	t.Helper()
	f, err := os.Open(page)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []block
	var cur *block
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```sh":
			cur = &block{page: page, line: n}
		case cur != nil && strings.TrimSpace(line) == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, line)
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: a ```sh block is never closed", page, cur.line)
	}
	return out
}

func pages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../README.md"}, docs...)
}

// TestDocCommands runs every sh block of the documentation.
func TestDocCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command of the documentation (minutes); not in -short mode")
	}
	need(t, "tmux", "apt-get install -y tmux")
	need(t, "git", "apt-get install -y git")
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	r := newRunner(t, repo)
	for _, page := range pages(t) {
		blocks := shBlocks(t, page)
		if len(blocks) == 0 {
			continue
		}
		t.Run(strings.TrimPrefix(page, "../"), func(t *testing.T) {
			builds := false
			for _, b := range blocks {
				builds = builds || b.builds()
			}
			s := r.session(t, builds)
			for _, b := range blocks {
				if page == "../README.md" && containsLine(b.lines, testCommand) {
					b = r.withoutTestCommand(t, b)
				}
				s.run(t, b)
			}
		})
	}
}

// withoutTestCommand checks that .ci/run runs the README's test command as
// written and returns the block without it.
func (r *runner) withoutTestCommand(t *testing.T, b block) block {
	ci, err := os.ReadFile(filepath.Join(r.repo, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !containsLine(strings.Split(string(ci), "\n"), testCommand) {
		t.Errorf("%s shows %q as the test command, but .ci/run does not run it", b, testCommand)
	}
	var rest []string
	for _, l := range b.lines {
		if !strings.HasPrefix(strings.TrimSpace(l), testCommand) {
			rest = append(rest, l)
		}
	}
	b.lines = rest
	return b
}

func containsLine(lines []string, cmd string) bool {
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == cmd || strings.HasPrefix(l, cmd+" ") {
			return true
		}
	}
	return false
}

// need skips (or in CI fails) the test when a program is missing.
func need(t *testing.T, prog, install string) {
	t.Helper()
	if _, err := exec.LookPath(prog); err == nil {
		return
	}
	msg := fmt.Sprintf("%s is not installed (%s)", prog, install)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// startModel starts the stand-in model server for one page.
func startModel(t *testing.T) string {
	srv := httptest.NewServer(fakemodel.New())
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestDocLinks checks that every relative link of the documentation reaches
// a file, and its #anchor a heading of that file, and that the README stays
// a front door.
func TestDocLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)#\s]*)(#[^)\s]*)?\)`)
	for _, page := range pages(t) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(text), -1) {
			target, anchor := m[1], strings.TrimPrefix(m[2], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file := page
			if target != "" {
				file = filepath.Join(filepath.Dir(page), target)
			}
			body, err := os.ReadFile(file)
			if err != nil {
				t.Errorf("%s links to %s, which does not exist", page, m[0])
				continue
			}
			if anchor != "" && !slices.Contains(anchors(string(body)), anchor) {
				t.Errorf("%s links to %s, but %s has no heading with that anchor", page, m[0], file)
			}
		}
	}
	readme, _ := os.ReadFile("../README.md")
	if n := strings.Count(string(readme), "\n"); n > 300 {
		t.Errorf("README.md has %d lines; the manual belongs in docs/ (at most 300)", n)
	}
}

// anchors returns the GitHub anchors of a markdown file's headings.
func anchors(md string) []string {
	var out []string
	fence := false
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(l, "#")))
		var b strings.Builder
		for _, r := range h {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		out = append(out, b.String())
	}
	return out
}
