package builtin

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
)

func TestSearchFiles(t *testing.T) {
	ws, _ := project(t)
	sf := NewSearchFiles(ws)

	out := ok(t, sf, SearchFilesInput{Pattern: "needle"})
	want := "keep.log:1: needle kept\n" +
		"main.go:1: package main // needle\n" +
		"pkg/a.go:3: // needle one\n" +
		"pkg/a_test.go:1: package pkg // needle\n" +
		"pkg/root-only.txt:1: needle anchored pattern does not apply here\n" +
		"pkg/sub/deep/leaf.md:1: # needle\n" +
		"pkg/sub/real.go:1: needle nested\n" +
		"\n(7 matching lines in 7 files, sorted by path; 1 binary file skipped)"
	if out != want {
		t.Errorf("search =\n%s\nwant\n%s", out, want)
	}

	// Regexp with a needle, regexp without, glob filters, path filter.
	if out := ok(t, sf, SearchFilesInput{Pattern: `needle (one|nested)$`}); !strings.Contains(out, "pkg/a.go:3:") || !strings.Contains(out, "pkg/sub/real.go:1:") || strings.Contains(out, "main.go") {
		t.Errorf("regexp search = %q", out)
	}
	if out := ok(t, sf, SearchFilesInput{Pattern: `^func [A-Z]\(`}); !strings.HasPrefix(out, "pkg/a.go:4: func A() {}\n") {
		t.Errorf("anchored regexp = %q", out)
	}
	if out := ok(t, sf, SearchFilesInput{Pattern: "(?i)NEEDLE", Glob: "*_test.go"}); !strings.HasPrefix(out, "pkg/a_test.go:1:") || strings.Count(out, "\n") != 2 {
		t.Errorf("glob *_test.go = %q", out)
	}
	if out := ok(t, sf, SearchFilesInput{Pattern: "needle", Glob: "pkg/**/*.go"}); strings.Contains(out, "main.go") || !strings.Contains(out, "pkg/sub/real.go") {
		t.Errorf("glob pkg/**/*.go = %q", out)
	}
	if out := ok(t, sf, SearchFilesInput{Pattern: "needle", Path: "pkg/sub"}); !strings.HasPrefix(out, "pkg/sub/deep/leaf.md:1:") {
		t.Errorf("path pkg/sub = %q", out)
	}
	if out := ok(t, sf, SearchFilesInput{Pattern: "needle", Path: "pkg/a.go"}); !strings.HasPrefix(out, "pkg/a.go:3:") {
		t.Errorf("single file = %q", out)
	}
	if out := ok(t, sf, SearchFilesInput{Pattern: "nothing here"}); !strings.HasPrefix(out, `no matches for "nothing here" in .`) {
		t.Errorf("no match = %q", out)
	}
	fails(t, sf, SearchFilesInput{Pattern: "a(b"}, "not a valid Go regular expression", "missing closing )")
	fails(t, sf, SearchFilesInput{}, "pattern is required")
	fails(t, sf, SearchFilesInput{Pattern: "x", Glob: "[x"}, "not a valid pattern")
	fails(t, sf, SearchFilesInput{Pattern: "x", Path: "nope"}, "does not exist")
}

func TestSearchFilesMaxResultsDeterministic(t *testing.T) {
	ws, root := newWS(t)
	m := map[string]string{}
	for i := range 60 {
		m[fmt.Sprintf("d%02d/f.txt", i)] = strings.Repeat("hit\nmiss\n", 5)
	}
	files(t, root, m)
	sf := NewSearchFiles(ws)
	first := ok(t, sf, SearchFilesInput{Pattern: "hit", MaxResults: 42})
	for range 20 {
		if again := ok(t, sf, SearchFilesInput{Pattern: "hit", MaxResults: 42}); again != first {
			t.Fatalf("output differs between runs:\n%s\n---\n%s", first, again)
		}
	}
	lines := strings.Split(first, "\n")
	if lines[0] != "d00/f.txt:1: hit" || lines[41] != "d08/f.txt:3: hit" {
		t.Errorf("first/last = %q / %q", lines[0], lines[41])
	}
	if !strings.Contains(first, "first 42 matching lines shown") {
		t.Errorf("truncation not reported: %q", lines[len(lines)-1])
	}
	// Exactly max_results matches is not truncated.
	if out := ok(t, sf, SearchFilesInput{Pattern: "hit", Path: "d00", MaxResults: 5}); !strings.Contains(out, "5 matching lines in 1 file") {
		t.Errorf("exact limit = %q", out)
	}
}

func TestSearchFilesLongLine(t *testing.T) {
	ws, root := newWS(t)
	files(t, root, map[string]string{"min.js": strings.Repeat("x", 5000) + "NEEDLE" + strings.Repeat("y", 5000) + "\n"})
	out := ok(t, NewSearchFiles(ws), SearchFilesInput{Pattern: "NEEDLE"})
	line, _, _ := strings.Cut(out, "\n")
	if len(line) > searchMaxLineLen+40 || !strings.Contains(line, "NEEDLE") || !strings.HasPrefix(line, "min.js:1: … ") {
		t.Errorf("long line shown as %d bytes: %q", len(line), line)
	}
}

// TestMatcherAgreesWithRegexp checks every fast path against a plain
// line-by-line regexp.
func TestMatcherAgreesWithRegexp(t *testing.T) {
	text := "alpha beta\r\n\nfunc NewReader(r io.Reader) *Reader {\n\tgamma_delta(1)\nBETA\nxNewReaderx\nABC1234x ab12 XYZ9876\n" +
		"2026-11-30 ZZ99999q\n12\n34\nlast line no newline NewReader"
	for _, text := range []string{text, text + "\n", strings.Repeat(text+"\n", 3000)} {
		checkMatcher(t, text)
	}
}

func checkMatcher(t *testing.T, text string) {
	t.Helper()
	for _, p := range []string{
		"beta", "NewReader", `New\w+\(`, `\w+Reader\b`, `(?i)beta`, `^$`, `line$`, `^\t`, `[a-z]+_[a-z]+\(`,
		`a|x`, `\r`, "gamma_delta\\(1\\)$", `(Reader){2}`, `^alpha beta$`,
		`[A-Z]{3}[0-9]{4}[a-z]`, `[A-Z]{2}[0-9]{5}`, `[0-9]{2}$`, `^[0-9]{2}`, `([0-9]{2}){2}`, `(?i)[a-z]{2}[0-9]{2}`,
	} {
		m, err := newMatcher(p)
		if err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile(p)
		var want []int
		for i, l := range strings.Split(text, "\n") {
			if re.MatchString(strings.TrimSuffix(l, "\r")) {
				want = append(want, i+1)
			}
		}
		var got []int
		if strings.HasSuffix(text, "\n") {
			want = want[:len(want)-1+boolInt(!re.MatchString(""))] // no line after the final newline
		}
		for _, lm := range m.find([]byte(text), 1<<20) {
			got = append(got, lm.line)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("pattern %q on %d bytes: %d lines, want %d", p, len(text), len(got), len(want))
		}
	}
}

// Literal-free patterns are prefiltered by the most selective run of a
// small byte class they require.
func TestRequiredRun(t *testing.T) {
	for p, want := range map[string]string{
		`[A-Z]{3}[0-9]{4}[a-z]`: "0-9 x4",
		`[A-Z]{3}x`:             "A-Z x3",
		`\w{5}`:                 "",
		`[a-z]+`:                "",
		`[0-9]x|y`:              "",
		`[é-ü]{4}`:              "",
		`x[0-9][0-9][0-9]y`:     "0-9 x3",
	} {
		re, err := syntaxParse(p)
		if err != nil {
			t.Fatal(err)
		}
		set, n := requiredRun(re)
		got := ""
		if set != nil {
			lo, hi := -1, -1
			for b, ok := range set {
				if ok {
					if lo < 0 {
						lo = b
					}
					hi = b
				}
			}
			got = fmt.Sprintf("%c-%c x%d", lo, hi, n)
		}
		if got != want {
			t.Errorf("requiredRun(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestRequiredLiteral(t *testing.T) {
	for p, want := range map[string]string{
		`\w+Reader\(`:    "Reader(",
		`func New[A-Z]`:  "func New",
		`(?i)foo`:        "",
		`a|bcd`:          "",
		`(abc)+x`:        "abc",
		`(?:xy){2,}zzzz`: "zzzz",
		`(abc)?d`:        "d",
	} {
		re, err := syntaxParse(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := requiredLiteral(re); got != want {
			t.Errorf("requiredLiteral(%q) = %q, want %q", p, got, want)
		}
	}
}

func syntaxParse(p string) (*syntax.Regexp, error) { return syntax.Parse(p, syntax.Perl) }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
