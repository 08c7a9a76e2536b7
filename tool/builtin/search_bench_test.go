package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/tool"
)

// goroot returns $(go env GOROOT)/src, or skips.
func goroot(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Skipf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
		tb.Skipf("no Go source tree at %s", src)
	}
	return src
}

var benchPatterns = []struct{ name, pattern string }{
	{"literal", "func NewReader"},
	{"regexp", `func New[A-Z]\w*Reader\(`},
	{"regexp-needle", `\w+Reader\) Read\(`},
	{"regexp-suffix", `[A-Z][a-z]+Closer\b`},
	{"regexp-noliteral", `[0-9]{4}-[0-9]{2}-[0-9]{2}`}, // only a 1-byte literal: the "-"
	{"regexp-noneedle", `[A-Z]{3}[0-9]{4}[a-z]`},       // no literal at all
}

// BenchmarkSearchFiles searches the Go standard library source tree.
func BenchmarkSearchFiles(b *testing.B) {
	src := goroot(b)
	ws, err := tool.NewWorkspace(src)
	if err != nil {
		b.Fatal(err)
	}
	sf := NewSearchFiles(ws)
	sf.maxBytes = 1 << 30 // full results, as grep gives
	for _, p := range benchPatterns {
		b.Run(p.name, func(b *testing.B) {
			input, _ := json.Marshal(SearchFilesInput{Pattern: p.pattern, MaxResults: 2000})
			for b.Loop() {
				res, err := sf.Execute(context.Background(), input)
				if err != nil || res.IsError {
					b.Fatalf("search: %v %s", err, res.Output)
				}
			}
		})
	}
}

// TestSearchFilesVersusGrep prints how long search_files, grep -rn and
// (when installed) ripgrep take on the Go source tree, best of 5 each. It
// asserts nothing about time; run it with
// HARNESS9_GREP_COMPARE=1 go test -run VersusGrep -v ./tool/builtin/
func TestSearchFilesVersusGrep(t *testing.T) {
	if os.Getenv("HARNESS9_GREP_COMPARE") == "" {
		t.Skip("set HARNESS9_GREP_COMPARE=1 to compare with grep -rn")
	}
	src := goroot(t)
	grep, err := exec.LookPath("grep")
	if err != nil {
		t.Skip("grep not installed")
	}
	rg, _ := exec.LookPath("rg") // optional
	ws, err := tool.NewWorkspace(src)
	if err != nil {
		t.Fatal(err)
	}
	sf := NewSearchFiles(ws)
	sf.maxBytes = 1 << 30 // full results, as grep gives
	best := func(f func()) time.Duration {
		f() // warm the page cache
		var min time.Duration
		for range 5 {
			start := time.Now()
			f()
			if d := time.Since(start); min == 0 || d < min {
				min = d
			}
		}
		return min
	}
	for _, p := range benchPatterns {
		input, _ := json.Marshal(SearchFilesInput{Pattern: p.pattern, MaxResults: 2000})
		var found int
		ours := best(func() {
			res, err := sf.Execute(context.Background(), input)
			if err != nil {
				t.Fatal(err)
			}
			found = strings.Count(res.Output, "\n") - 1 // minus the summary line
		})
		var lines, rgLines int
		theirs := best(func() {
			out, _ := exec.Command(grep, "-rnE", "--", grepPattern(p.pattern), src).Output()
			lines = strings.Count(string(out), "\n")
		})
		rgTime := "     -"
		if rg != "" {
			d := best(func() {
				out, _ := exec.Command(rg, "-n", "--no-heading", "-e", p.pattern, src).Output()
				rgLines = strings.Count(string(out), "\n")
			})
			rgTime = fmt.Sprintf("%6.1fms (%4d lines, search_files/rg %.2f)", d.Seconds()*1000, rgLines, ours.Seconds()/d.Seconds())
		}
		t.Logf("%-17s search_files %7.1fms (%4d lines)   grep -rn %7.1fms (%4d lines)   rg %s   %q",
			p.name, ours.Seconds()*1000, found, theirs.Seconds()*1000, lines, rgTime, p.pattern)
	}
}

// grepPattern translates the benchmark patterns' Perl classes for grep -E.
func grepPattern(p string) string {
	return strings.NewReplacer(`\w`, `[[:alnum:]_]`).Replace(p)
}
