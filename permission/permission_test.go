package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	good := map[string]Rule{
		"bash":                  {Tool: "bash"},
		" bash(git diff:*) ":    {Tool: "bash", Specifier: "git diff:*"},
		"bash(npm test)":        {Tool: "bash", Specifier: "npm test"},
		"edit_file(src/**)":     {Tool: "edit_file", Specifier: "src/**"},
		"mcp__github__*":        {Tool: "mcp__github__*"},
		"mcp__srv__tool":        {Tool: "mcp__srv__tool"},
		"web_fetch(domain:x.y)": {Tool: "web_fetch", Specifier: "domain:x.y"},
	}
	for in, want := range good {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":                      "empty",
		"bash(":                 "must end",
		"bash()":                "empty",
		"bash)":                 "without",
		"ba sh":                 "only letters",
		"(x)":                   "missing",
		"bash(git:* diff)":      "may only end",
		"bash(:*)":              "prefix before",
		"edit_file([)":          "not a valid path glob",
		"web_fetch(domain:)":    "not a host",
		"web_fetch(domain:a/b)": "not a host",
		"to*ol":                 "only letters",
	}
	for in, want := range bad {
		if _, err := Parse(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) error = %v, want it to mention %q", in, err, want)
		}
	}
}

func TestAddNamesRuleAndSource(t *testing.T) {
	rs := New(t.TempDir())
	err := rs.Add(Allow, "/home/u/.harness9/config.toml", "bash(git diff:*)", "bash(")
	if err == nil || !strings.Contains(err.Error(), "/home/u/.harness9/config.toml") || !strings.Contains(err.Error(), `"bash("`) {
		t.Fatalf("error %v should name the file and the rule", err)
	}
	if len(rs.List()) != 0 {
		t.Fatalf("a malformed list added rules: %v", rs.List())
	}
}

func TestCommandRules(t *testing.T) {
	tests := []struct {
		spec, line string
		want       bool
	}{
		{"git diff:*", "git diff", true},
		{"git diff:*", "git diff --stat HEAD~1", true},
		{"git diff:*", "git diff src/a.go | head -n 20", false}, // head is not git diff
		{"git diff:*", "git diff && git diff --cached", true},
		{"git diff:*", "git diff 2>&1", true},
		{"git diff:*", "git diff >/dev/null 2>&1", true},
		{"git diff:*", "git  diff", true},
		{"git diff:*", "'git' \"diff\"", true},
		{"git diff:*", "git status", false},
		{"git diff:*", "git", false},
		{"git diff:*", "git diff; rm -rf x", false},
		{"git diff:*", "git diff && rm -rf x", false},
		{"git diff:*", "git diff || rm -rf x", false},
		{"git diff:*", "git diff | sh", false},
		{"git diff:*", "git diff $(rm x)", false},
		{"git diff:*", "git diff `rm x`", false},
		{"git diff:*", "git diff <(rm x)", false},
		{"git diff:*", "git diff > out.txt", false},
		{"git diff:*", "git diff >> out.txt", false},
		{"git diff:*", "git diff &> out", false},
		{"git diff:*", "git diff --output=f", false},
		{"git diff:*", "git diff --output f", false},
		{"git diff:*", "git diff -o f", false},
		{"git diff:*", "git diff $X", false},
		{"git diff:*", "git diff ${X}", false},
		{"git diff:*", "git diff *", false},
		{"git diff:*", "git diff {a,b}", false},
		{"git diff:*", "git diff ~/x", false},
		{"git diff:*", "GIT_EXTERNAL_DIFF=x git diff", false},
		{"git diff:*", "git -c diff.external=x diff", false},
		{"git diff:*", "git diff &", false},
		{"git diff:*", "(git diff)", false},
		{"git diff:*", "{ git diff; }", false},
		{"git diff:*", "git diff # comment", false},
		{"git diff:*", "git diff \\\n; rm x", false},
		{"git diff:*", "git diff\r", false},
		{"git diff:*", "git diff <<EOF\nx\nEOF", false},
		{"git diff:*", "git() { rm -rf /; }; git diff", false},
		{"git diff:*", "for f in a; do git diff; done", false},
		{"git diff:*", "git diff 'unterminated", false},
		{"git diff:*", "git diff $'\\x41'", false},
		{"git diff:*", "", false},
		{"npm test", "npm test", true},
		{"npm test", "npm test --watch", false},
		{"npm test", "npm test && npm test", true},
		{"go:*", "go test ./... && go vet ./...", true},
	}
	for _, tt := range tests {
		if got := matchCommand(tt.spec, tt.line); got != tt.want {
			t.Errorf("bash(%s) on %q = %v, want %v", tt.spec, tt.line, got, tt.want)
		}
	}
}

func TestPathRules(t *testing.T) {
	wd := t.TempDir()
	if err := os.MkdirAll(filepath.Join(wd, "src", "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(wd, "secret"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(wd, "secret"), filepath.Join(wd, "src", "link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		glob, path string
		want       bool
	}{
		{"src/**", "src/a.go", true},
		{"src/**", "src/pkg/new/deep.go", true},
		{"src/**", filepath.Join(wd, "src/a.go"), true},
		{"src/**", "./src/a.go", true},
		{"src/**", "src/../secret/k", false},
		{"src/**", "../outside/src/a.go", false},
		{"src/**", "docs/a.md", false},
		{"secret/**", "src/link/k", true}, // the link is followed
		{"secret/**", "src/../secret/k", true},
		{"*.md", "README.md", true},
		{"*.md", "docs/README.md", false},
		{"/etc/**", "/etc/passwd", true},
	}
	for _, tt := range tests {
		if got := matchPath(tt.glob, tt.path, wd); got != tt.want {
			t.Errorf("glob %q on %q = %v, want %v", tt.glob, tt.path, got, tt.want)
		}
	}
}

func TestDecidePrecedence(t *testing.T) {
	wd := t.TempDir()
	rs := New(wd)
	must := func(a Action, rules ...string) {
		t.Helper()
		if err := rs.Add(a, "test", rules...); err != nil {
			t.Fatal(err)
		}
	}
	must(Allow, "bash(git:*)", "bash(make)", "edit_file(src/**)", "mcp__srv__*", "web_fetch(domain:go.dev)")
	must(Ask, "bash(git push:*)", "mcp__srv__deploy")
	must(Deny, "bash(git push --force:*)", "edit_file(src/gen/**)")
	tests := []struct {
		call Call
		def  Action
		want Action
		rule string
	}{
		{Call{Tool: "bash", Command: "git log"}, Ask, Allow, "bash(git:*)"},
		{Call{Tool: "bash", Command: "git push origin"}, Allow, Ask, "bash(git push:*)"},
		{Call{Tool: "bash", Command: "git push --force"}, Allow, Deny, "bash(git push --force:*)"},
		{Call{Tool: "bash", Command: "ls"}, Ask, Ask, ""},
		{Call{Tool: "edit_file", Path: "src/a.go"}, Ask, Allow, "edit_file(src/**)"},
		{Call{Tool: "edit_file", Path: "src/gen/a.go"}, Allow, Deny, "edit_file(src/gen/**)"},
		{Call{Tool: "write_file", Path: "src/a.go"}, Ask, Ask, ""},
		{Call{Tool: "mcp__srv__read"}, Ask, Allow, "mcp__srv__*"},
		{Call{Tool: "mcp__srv__deploy"}, Allow, Ask, "mcp__srv__deploy"},
		{Call{Tool: "mcp__other__x"}, Ask, Ask, ""},
		{Call{Tool: "web_fetch", URL: "https://pkg.go.dev/x"}, Ask, Allow, "web_fetch(domain:go.dev)"},
		{Call{Tool: "web_fetch", URL: "https://go.dev.evil.com/"}, Ask, Ask, ""},
		{Call{Tool: "mcp__srv__tool"}, Deny, Allow, "mcp__srv__*"},
		{Call{Tool: "bash", Command: "git log && make"}, Ask, Allow, "bash(git:*), bash(make)"},
		{Call{Tool: "bash", Command: "git log && make && ls"}, Ask, Ask, ""},
		{Call{Tool: "bash", Command: "ls && git push --force x"}, Allow, Deny, "bash(git push --force:*)"},
		{Call{Tool: "bash", Command: "git log $(x)"}, Ask, Ask, ""},
	}
	for _, tt := range tests {
		d := rs.Decide(tt.call, tt.def)
		rule := d.Rule()
		if d.Action != tt.want || rule != tt.rule {
			t.Errorf("Decide(%+v, %v) = %v by %q, want %v by %q", tt.call, tt.def, d.Action, rule, tt.want, tt.rule)
		}
	}
}

func TestSuggestAllowsTheCall(t *testing.T) {
	wd := t.TempDir()
	calls := []Call{
		{Tool: "bash", Command: "git diff --stat && go test ./..."},
		{Tool: "bash", Command: "rm -rf build"},
		{Tool: "bash", Command: "sort -o out in"},
		{Tool: "edit_file", Path: "src/a[1].go"},
		{Tool: "write_file", Path: filepath.Join(wd, "x.txt")},
		{Tool: "mcp__srv__write"},
		{Tool: "web_fetch", URL: "https://Example.com/a"},
	}
	for _, c := range calls {
		rules := Suggest(c, wd)
		if len(rules) == 0 {
			t.Errorf("no rule suggested for %+v", c)
			continue
		}
		rs := New(wd)
		if err := rs.Add(Allow, "suggested", rules...); err != nil {
			t.Errorf("suggested rules %q do not parse: %v", rules, err)
			continue
		}
		if d := rs.Decide(c, Ask); d.Action != Allow {
			t.Errorf("suggested rules %q do not allow %+v", rules, c)
		}
	}
	if got := Suggest(Call{Tool: "bash", Command: "git diff > f"}, wd); got != nil {
		t.Errorf("Suggest for a redirection = %q, want none (only bare bash would cover it)", got)
	}
	if got := Suggest(Call{Tool: "bash", Command: "git diff --stat"}, wd); len(got) != 1 || got[0] != "bash(git diff:*)" {
		t.Errorf("Suggest(git diff --stat) = %q", got)
	}
}
