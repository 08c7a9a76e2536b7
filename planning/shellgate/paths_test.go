package shellgate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/tool"
)

// sandboxWorld builds a fake home (HOME is set to it) holding credentials, a
// workspace with a few files and symlinks leading out (e to /etc, link to a
// sibling project, deep into it), and that sibling project with secrets.
func sandboxWorld(t *testing.T) *tool.Workspace {
	t.Helper()
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	root := filepath.Join(tmp, "ws")
	files := map[string]string{
		"home/.ssh/id_rsa":         "PRIVATE KEY",
		"home/.aws/credentials":    "aws_secret_access_key=x",
		"home/.bash_history":       "history",
		"other-project/.env":       "OPENAI_API_KEY=sk-x",
		"other-project/secret.txt": "secret",
		"other-project/inner/x":    "x",
		"ws/d1/same.txt":           "1\n",
		"ws/d2/same.txt":           "2\n",
		"ws/f":                     "a b 3\n",
		"ws/README.md":             "# readme\nfoo\n",
		"ws/b.txt":                 "b\n",
		"ws/a/x.txt":               "x\n",
		"ws/file.go":               "package x\n",
		"ws/src/main.go":           "package main\n",
		"ws/package.json":          `{"name":"x"}`,
		"ws/list.txt":              "/etc/passwd\n",
		"ws/src/deeper/nothing.md": "",
	}
	for rel, content := range files {
		p := filepath.Join(tmp, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"e":     "/etc",                                       // ln -s /etc e
		"link":  filepath.Join(tmp, "other-project"),          // a directory outside
		"deep":  filepath.Join(tmp, "other-project", "inner"), // deep/.. is other-project
		"[x]ln": filepath.Join(tmp, "other-project", "secret.txt"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	ws, err := tool.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestCheckWorkspaceReads(t *testing.T) {
	if _, err := os.Stat("/etc/passwd"); err != nil {
		t.Skip("needs /etc/passwd")
	}
	ws := sandboxWorld(t)
	tests := []struct {
		cmd  string
		want string // "" = allowed; else a fragment of the refusal
	}{
		// Outside the workspace, or into the deny list.
		{"cat ~/.ssh/id_rsa", "home directory"},
		{"cat /etc/passwd", "outside the workspace"},
		{"grep -r key ~/.aws", "home directory"},
		{"ls /", "outside the workspace"},
		{"ls ~", "outside the workspace"},
		{"head ../other-project/.env", "outside the workspace"},
		{"find / -name x", "outside the workspace"},
		{"find . ~/.ssh -name id_rsa", "home directory"},
		{"tail -n 5 ~/.bash_history", "outside the workspace"},
		{"cat ~root/.bashrc", "home directory"},
		{"cat /proc/self/environ", "outside the workspace"},
		{"cat e/passwd", "outside the workspace"}, // symlink inside → /etc
		{"cat ./e/../e/passwd", "outside the workspace"},
		{"wc -l < /etc/passwd", "outside the workspace"},
		{"cat /etc/*", "outside the workspace"},
		{"cat */passwd", "matches e/passwd"},
		{"cat */../../other-project/.env", "outside the workspace"},
		{"cat {README.md,/etc/passwd}", "brace expansion"},
		{"diff README.md /etc/passwd", "outside the workspace"},
		{"awk '{print $1}' /etc/passwd", "outside the workspace"},
		{"sed -n p /etc/passwd", "outside the workspace"},
		{"cut -d: -f1 /etc/passwd", "outside the workspace"},
		// Option values and pattern slots.
		{"grep -f /etc/passwd README.md", "outside the workspace"},
		{"grep -f/etc/passwd README.md", "outside the workspace"},
		{"grep --file=/etc/passwd README.md", "outside the workspace"},
		{"grep --fi /etc/passwd README.md", "outside the workspace"},
		{"grep -e foo /etc/passwd", "outside the workspace"},
		{"grep foo README.md /etc/passwd", "outside the workspace"},
		{"grep -C 2 foo /etc/passwd", "outside the workspace"},
		{"grep -C foo /etc/passwd", "outside the workspace"}, // BSD grep: -C takes no value
		{"rg -f ~/.ssh/id_rsa .", "home directory"},
		{"sort --random-source=/etc/passwd README.md", "outside the workspace"},
		{"date -f /etc/passwd", "outside the workspace"},
		{"date -r ~/.ssh/id_rsa", "home directory"},
		{"jq . --rawfile x /etc/passwd", "outside the workspace"},
		{"file -m /etc/passwd README.md", "outside the workspace"},
		{"wc --files0-from=/etc/passwd", "reads file names"},
		{"find . -newer /etc/passwd", "outside the workspace"},
		{"git -C /etc log", "outside the workspace"},
		{"git -C .. status", "outside the workspace"},
		{"git --git-dir=/etc/.git log", "outside the workspace"},
		{"git diff --no-index README.md /etc/passwd", "outside the workspace"},
		{"git config --file=../.gitconfig --list", "outside the workspace"},
		// A pattern naming an existing location outside is refused too: on
		// another platform's grep it could be an operand.
		{"grep -rn /usr/local .", "names a location outside the workspace"},
		{"git config --list", ""},
		{"git config --global --get user.email", ""},
		{"cat <(cat /etc/passwd)", "outside the workspace"},
		{"echo \"$(head -1 ~/.ssh/id_rsa)\"", "home directory"},
		// Scripts that open files or read the environment.
		{"sed '1r /etc/passwd' README.md", "sed r/R"},
		{"awk 'BEGIN { getline l < \"/etc/passwd\"; print l }'", "getline"},
		{"awk 'BEGIN { ARGV[1] = \"/etc/passwd\"; ARGC = 2 } { print }'", "ARGV"},
		{"awk 'BEGIN { print ENVIRON[\"OPENAI_API_KEY\"] }'", "ENVIRON"},
		{"jq -n '$ENV.OPENAI_API_KEY'", "$ENV"},
		{"jq -n 'env | keys'", "$ENV or env"},
		{"jq -f prog.jq package.json", "jq -f"},
		// Symlink-following options.
		{"grep -R foo .", "follows symlinks"},
		{"grep -Rn foo .", "follows symlinks"},
		{"rg --follow foo", "follows symlinks"},
		{"find -L . -name x", "follows symlinks"},
		{"find . -follow -name x", "follows symlinks"},
		{"tree -l", "follows symlinks"},
		// cd.
		{"cd / && cat etc/passwd", "outside the workspace"},
		{"cd", "home directory"},
		{"cd ..", "outside the workspace"},
		{"cd - && ls", "cd -"},
		{"cd e && cat passwd", "outside the workspace"},
		{"for d in a src; do cd $d; ls; done", "cd inside a loop"},
		// Paths that cannot be checked.
		{"cat $(echo /etc/passwd)", "must be literal"},
		{"cat \"$HOME/.ssh/id_rsa\"", "must be literal"},
		{"while read -r f; do cat \"$f\"; done < list.txt", "must be literal"},
		{"for f in /etc/passwd; do cat \"$f\"; done", "outside the workspace"},
		{"for f in '/etc/passwd README.md'; do cat $f; done", "outside the workspace"},
		{"for o in -f/etc/passwd; do grep $o x README.md; done", "read as an option"},
		{"cat list.txt | xargs cat", "xargs passes its input"},
		{"cat < $(echo /etc/passwd)", "must be literal"},
		// Secrets in the environment.
		{"env", "environment variables"},
		{"printenv", "environment variables"},
		{"export", "environment variables"},
		{"set", "environment variables"},

		// Inside the workspace.
		{"cat README.md", ""},
		{"grep -rn foo .", ""},
		{"ls src", ""},
		{"ls", ""},
		{"find . -name '*.go'", ""},
		{"find src -type f -newer README.md", ""},
		{"git log -p -- file.go", ""},
		{"git show HEAD:README.md", ""},
		{"git diff HEAD~1 -- src/", ""},
		{"git -C src log --oneline", ""},
		{"git grep -n '/api/v1'", ""},
		{"cat ./a/../b.txt", ""},
		{"cat ../ws/README.md", ""},
		{"wc -l < README.md", ""},
		{"wc -l *.go src/*.go", ""},
		{"grep -rn '/api/v1' .", ""},
		{"grep -e /api -e /v2 -rn .", ""},
		{"grep -c foo README.md /dev/null", ""},
		{"rg -n TODO --glob '*.go'", ""},
		{"rg -g '/src/*' foo", ""},
		{"cut -d/ -f1 README.md; cut -d / -f2 README.md", ""},
		{"sort -t / -k2 README.md | uniq -c", ""},
		{"head -n 20 README.md | tail -n 5", ""},
		{"sed -n '1,20p' README.md", ""},
		{"sed 's|/usr|/opt|g' README.md", ""},
		{"awk -F: '{print $1}' README.md", ""},
		{"jq .name package.json", ""},
		{"jq '.env, .environment' package.json", ""},
		{"git config --local --get remote.origin.url", ""},
		{"cd src && ls && cat main.go", ""},
		{"(cd src/deeper && ls)", ""},
		{"for f in README.md src/main.go; do wc -l \"$f\"; done", ""},
		{"for f in *.md; do head -n1 $f; done", ""},
		{"diff <(sort README.md) <(sort b.txt)", ""},
		{"echo /etc/passwd ~/.ssh", ""},
		{"printf '%s\\n' /etc", ""},
		{"echo $HOME; pwd", ""},
		{"date +%Y-%m-%d", ""},
		{"test -f README.md && echo yes", ""},
		{"[ -d src ] && ls src", ""},
		{"which go; basename /a/b", ""},
		{"git status --short && git branch", ""},
	}
	for _, tc := range tests {
		err := Check(tc.cmd, WithWorkspace(ws))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Check(%q) = %v, want allowed", tc.cmd, err)
		case tc.want != "" && err == nil:
			t.Errorf("Check(%q) = nil, want a refusal mentioning %q", tc.cmd, tc.want)
		case tc.want != "" && !strings.Contains(err.Error(), tc.want):
			t.Errorf("Check(%q) = %q, want it to mention %q", tc.cmd, err, tc.want)
		}
	}
}

func TestCheckWorkspacePathErrors(t *testing.T) {
	ws := sandboxWorld(t)
	err := Check("ls && cat ~/.ssh/id_rsa", WithWorkspace(ws))
	var ce *CommandError
	if !errors.As(err, &ce) || ce.Path != "~/.ssh/id_rsa" || ce.Command != "cat ~/.ssh/id_rsa" {
		t.Fatalf("error %#v should name the command and the path", err)
	}
	// A read-only refusal is not a path refusal.
	if err := Check("rm -rf /", WithWorkspace(ws)); !errors.As(err, &ce) || ce.Path != "" {
		t.Errorf("rm: %#v", err)
	}
	// Without a workspace only read-only-ness is checked.
	if err := Check("cat /etc/passwd"); err != nil {
		t.Errorf("no workspace: %v", err)
	}
}
