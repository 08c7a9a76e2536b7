package shellgate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/tool"
)

// The attack corpus of issue 8: each class of command that got through the
// gate, several ways, and what planners need that the gate used to refuse.
// The gate is the first lock only; the kernel sandbox's own tests assert
// the effects. Here the refusal is asserted, and its reason.

type attack struct {
	cmd  string
	want string // a fragment of the refusal
}

var attackClasses = map[string][]attack{
	// GNU sed ends a label at a blank, so `:a e CMD` is a label and an e
	// command; sed's regexes skip delimiters inside [...].
	"sed runs or writes": {
		{"sed ':a e rm x' f", "could not be checked"},
		{"sed ':a;e rm x' f", "e (execute)"},
		{"sed -e ':a' -e 'e rm x' f", "e (execute)"},
		{"sed 'b end e rm x' f", "could not be checked"},
		{"sed 't x\te rm x' f", "could not be checked"},
		{"sed '/x/ e rm x' f", "e (execute)"},
		{"sed '1!{e rm x\n}' f", "e (execute)"},
		{"sed 's/a/b/e' f", "e (execute)"},
		{"sed 's/a/b/gw out' f", "w/W"},
		{"sed 's/[/]/e/' f", "delimiter inside [...]"},
		{"sed 's/[[:alpha:]/]/x/;e rm x' f", "delimiter inside [...]"},
		{"sed 'y/abc/xyz/;e rm x' f", "e (execute)"},
		{"sed -n '1W out' f", "w/W"},
		{"sed --expression='1e rm x' f", "e (execute)"},
		{"sed -ni p f", "sed -i"},
		{"sed -f prog.sed f", "sed -f"},
	},
	// Clustered short options carry a letter the gate must see.
	"bundled short options": {
		{"git grep -iO'rm x' foo", "git grep -O"},
		{"git grep -nO vi foo", "git grep -O"},
		{"git grep -O foo", "git grep -O"},
		{"git grep --open-files-in-pager=vi foo", "git grep -O"},
		{"git grep --op=vi foo", "git grep -O"},
		{"sort -ro out in", "sort -o"},
		{"sort -rT /tmp in", "sort -T"},
		{"tail -nf 5 f", "never ends"},
		{"jq -nf prog.jq", "jq -f"},
		{"tree -aR", "tree -o"},
		{"file -zC -m magic", "file -C"},
		{"md5sum -bc sums", "reads file names"},
	},
	// Legacy git config stops at its first operand: KEY VALUE --get sets KEY.
	"git config writes": {
		{"git config a.b c --get", "git config can change"},
		{"git config core.fsmonitor 'touch x' --get-all", "git config can change"},
		{"git config --get a.b c d", "git config can change"},
		{"git config --list core.pager", "git config can change"},
		{"git config --add a.b c", "git config can change"},
		{"git config --unset a.b", "git config can change"},
		{"git config -e", "git config can change"},
		{"git config set a.b c", "git config can change"},
		{"git config get a.b c", "git config can change"},
		{"git config --get --unset a.b", "git config can change"},
		{"git config --get-regexp a.b --replace-all c", "git config can change"},
		{"git -c core.pager=x log", "git -c"},
		{"git --config-env=core.pager=X log", "git -c"},
	},
	// branch and tag create a ref from an operand unless a listing option
	// (--list, --contains ...) is given; --sort and --format are not one.
	"git refs created": {
		{"git branch --sort=refname NAME", "git branch can change"},
		{"git branch --sort refname NAME", "git branch can change"},
		{"git branch '--format=%(refname)' NAME", "git branch can change"},
		{"git branch -v NAME", "git branch can change"},
		{"git branch --column NAME", "git branch can change"},
		{"git branch -f main HEAD~1", "git branch can change"},
		{"git branch -m old new", "git branch can change"},
		{"git tag --sort=refname NAME", "git tag can change"},
		{"git tag --format x NAME", "git tag can change"},
		{"git tag -i NAME", "git tag can change"},
		{"git tag -a v1 -m x", "git tag can change"},
	},
	// gpg runs (and creates ~/.gnupg) to verify signatures.
	"signature verification": {
		{"git log '--format=%G?'", "runs gpg"},
		{"git log --format=%G?", "must be literal"},
		{"git log --pretty='tformat:%GS'", "runs gpg"},
		{"git show --show-signature HEAD", "runs gpg"},
		{"git log --show-sig", "runs gpg"},
		{"git for-each-ref --format='%(signature)'", "runs gpg"},
		{"git tag -v v1", "gpg"},
		{"git verify-commit HEAD", "git verify-commit can change"},
	},
	"other git writers": {
		{"git log --output=x", "--output writes"},
		{"git diff --out=x", "--output writes"},
		{"git diff --ext-diff", "external program"},
		{"git cat-file --textconv HEAD:x", "external program"},
		{"git reflog expire --all", "git reflog can change"},
		{"git stash", "git stash can change"},
		{"git -p log", "not allowed"},
	},
	// uniq writes its second operand, wherever -- or options put it.
	"uniq output file": {
		{"uniq in out", "uniq INPUT OUTPUT"},
		{"uniq in -- -out", "uniq INPUT OUTPUT"},
		{"uniq -- in out", "uniq INPUT OUTPUT"},
		{"uniq -c in -out", "uniq INPUT OUTPUT"},
		{"uniq -f 1 in out", "uniq INPUT OUTPUT"},
		{"uniq -f1 in out", "uniq INPUT OUTPUT"},
		{"uniq --skip-fields 1 in out", "uniq INPUT OUTPUT"},
		{"uniq in $(echo out)", "uniq INPUT OUTPUT"},
	},
	// Jobs that outlive the call.
	"background jobs": {
		{"tail -f f &", "background"},
		{"ls & ls", "background"},
		{"{ cat f & }", "background"},
		{"echo $(cat f &)", "background"},
		{"(ls &)", "background"},
		{"tail -f f", "never ends"},
		{"tail --follow=name f", "never ends"},
		{"tail -F f", "never ends"},
		{"coproc cat", "coprocesses"},
	},
	// File names read from a file or stdin cannot be checked.
	"names from input": {
		{"sort --files0-from=-", "reads file names"},
		{"sort --files0-from=list", "reads file names"},
		{"wc --files0-from=-", "reads file names"},
		{"wc --files0=list", "reads file names"},
		{"du --files0-from=list", "reads file names"},
		{"find -files0-from list", "reads file names"},
		{"file -f names", "reads file names"},
		{"sha256sum --check sums", "reads file names"},
		{"tree --fromfile list", "reads file names"},
	},
	// What prints the environment, where API keys live, whatever the case
	// of the name.
	"environment printers": {
		{"env", "environment variables"},
		{"printenv", "environment variables"},
		{"printenv OPENAI_API_KEY", "may print a secret"},
		{"printenv github_token", "may print a secret"},
		{"echo $github_token", "may hold a secret"},
		{"echo ${openai_api_key}", "may hold a secret"},
		{"echo ${#OPENAI_API_KEY}", "may hold a secret"},
		{"echo \"${x:-$TOKEN}\"", "may hold a secret"},
		{"echo $x; for x in a; do :; done", "may hold a secret"},
		{"for f in a; do :; done; echo $f", "may hold a secret"},
		{"read x < f; echo $x", "may hold a secret"},
		{"while read x; do :; done < f; echo $x", "may hold a secret"},
		{"until read x; do echo $x; done < f", "may hold a secret"},
		{"cat <<EOF\n$aws_secret\nEOF", "may hold a secret"},
		{"jq -n '$ENV'", "$ENV or env"},
		{"jq -n '$ ENV'", "$ENV or env"},
		{"jq -n '$\nENV'", "$ENV or env"},
		{"jq -n '$ENV.X'", "$ENV or env"},
		{"jq -n 'env'", "$ENV or env"},
		{"jq -n 'env.HOME'", "$ENV or env"},
		{"jq -n '\"\\(env)\"'", "$ENV or env"},
		{"jq -n '[1]|env'", "$ENV or env"},
		{"awk 'BEGIN{print ENVIRON[\"X\"]}'", "ENVIRON"},
		{"awk 'BEGIN{print PROCINFO[\"pid\"]}'", "PROCINFO"},
		{"set", "environment variables"},
		{"export -p", "environment variables"},
		{"declare -p", "environment variables"},
		{"ps e", "ps e"},
		{"ps auxe", "ps e"},
		{"ps --format=environ", "ps -o environ"},
		{"ps -oenviron", "ps -o environ"},
		{"go env", "go env without names"},
		{"go env -json", "go env without names"},
		{"go env GOPROXY", "credential"},
		{"echo ${!OPENAI*}", "indirect expansion"},
	},
	// Input mvdan.cc/sh and bash read differently is refused, not modelled.
	"parser differences": {
		{"echo a # c \\\nrm x", "ends in a backslash"},
		{"# \\\nrm x", "ends in a backslash"},
		{"ls # it's \\\nrm x", "ends in a backslash"},
		{"ls \\\r\nrm x", "carriage return"},
		{"ls\r\nrm x", "carriage return"},
		{"echo $(cat <<EOF\nhi\nEOF\n)", "here-document inside"},
		{"echo $(cat <<EOF\nhi\nEOF)", "here-document"},
		{"diff <(cat <<EOF\nx\nEOF\n) f", "here-document inside"},
		{"cat <<EOF\n$(echo '\nEOF\nrm x\n')\nEOF", "begins with its terminator"},
		{"cat <<EOF\nE\\\nOF\nrm x\nEOF", "ends in a backslash"},
		{"cat <<EOF\nEOF \nrm x\nEOF", "begins with its terminator"},
		{"cat <<-EOF\n\t EOF\nrm x\nEOF", "begins with its terminator"},
		{"cat <<EOF; echo \"\nEOF\nrm x\n\"\nbody\nEOF", "on the line after"},
		{"cat <<EOF <<EOF2\na\nEOF\nb\nEOF2", "one here-document per line"},
		{"cat <<$x\nx\n$x", "could not be parsed"},
		{"cat `echo f`", "backquote"},
		{"echo $(ls # )\nrm x\n)", "comment inside"},
		{"echo $((ls) )", ""},
		{"((ls) )", "could not be parsed"},
		{"ls @(a|b)", "extended globs"},
		{"ls !(x)", "extended globs"},
		{"ls \x00", "control character"},
		{"ls \x1b[0m", "control character"},
		{"ls \xff", "UTF-8"},
		{"cat <0<f", "redirection to a number"},
		{"cat <1>&2", "redirection to a number"},
		{"find \\", "ends in a backslash"},
		{"ls \\\n", "ends in a backslash"},
	},
	// xargs and find -exec run only simple readers.
	"commands run by xargs and find": {
		{"find . -exec rm {} \\;", "find -exec would run rm"},
		{"find . -exec sh -c 'rm x' \\;", "nested shell"},
		{"find . -execdir sed -i s/a/b/ {} +", "may run only simple readers"},
		{"find . -exec cat {} \\; -delete", "find -delete"},
		{"find . -exec cat {} + -exec rm {} +", "find -exec would run rm"},
		{"find . -ok cat {} \\;", "confirmation"},
		{"find . -exec cat {}", "terminating"},
		{"xargs rm", "xargs would run rm"},
		{"xargs -I{} sh -c '{}'", "nested shell"},
		{"xargs sed -i s/a/b/", "may run only simple readers"},
		{"xargs git log", "may run only simple readers"},
		{"xargs find", "may run only simple readers"},
		{"xargs env", "may run only simple readers"},
		{"xargs -- tail -f", "never ends"},
		{"xargs --process-slot-var=LD_PRELOAD cat", "process-slot-var"},
		{"xargs -p cat", "terminal"},
		{"xargs -n1 ./cat", "bare name"},
	},
	"awk runs or writes": {
		{"awk '{ system(\"rm x\") }' f", "system"},
		{"awk '{ print > \"f\" }' f", "may not contain >"},
		{"awk '{ print $1 >> \"f\" }' f", "may not contain >"},
		{"awk '$1 > 0 { print > \"f\" }' f", "may not contain >"},
		{"awk '{ print | \"sh\" }' f", "may not contain |"},
		{"awk 'BEGIN { print |& \"sh\" }'", "may not contain |"},
		{"awk 'BEGIN { \"date\" | getline d }'", "getline"},
		{"awk '@include \"x\"'", "@"},
		{"awk 'BEGIN { f = \"sys\" \"tem\"; @f(\"rm x\") }'", "@"},
		{"awk 'BEGIN { sys\\\ntem(\"rm x\") }'", "backslash"},
		{"awk -f prog.awk f", "only -F and -v"},
		{"awk -e 'BEGIN{}' f", "only -F and -v"},
	},
	"go compiles or changes": {
		{"go run .", "go run compiles"},
		{"go build ./...", "go build compiles"},
		{"go test ./...", "go test compiles"},
		{"go vet ./...", "go vet compiles"},
		{"go generate ./...", "go generate compiles"},
		{"go mod tidy", "go mod compiles"},
		{"go env -w GOFLAGS=-x", "go env -w"},
		{"go list -toolexec=sh ./...", "flag -toolexec"},
		{"go list -export ./...", "flag -export"},
		{"go list -compiled ./...", "flag -compiled"},
		{"go list -mod=mod ./...", "-mod=mod"},
		{"go list -mod mod ./...", "-mod=mod"},
		{"go list -modfile=x.mod ./...", "flag -modfile"},
		{"go doc -http", "flag -http"},
	},
}

// workspaceAttacks are reads outside the workspace, refused WithWorkspace
// (sandboxWorld: link and deep lead out, e is /etc).
var workspaceAttacks = map[string][]attack{
	// ".." applies to where a symlink led, not to its name.
	"dot-dot after a symlink": {
		{"cat deep/../secret.txt", "outside the workspace"},
		{"head -n1 deep/../.env", "outside the workspace"},
		{"ls deep/../inner/../secret.txt", "outside the workspace"},
		{"wc -l < deep/../secret.txt", "outside the workspace"},
		{"grep -r key deep/..", "outside the workspace"},
		{"cd deep/.. && cat secret.txt", "outside the workspace"},
	},
	// bash reads [!x] as "not x"; Go's Match does not.
	"glob differences": {
		{"cat [!x]ink/secret.txt", "matches link/secret.txt"},
		{"cat [^x]ink/secret.txt", "matches link/secret.txt"},
		{"cat l[!]]nk/secret.txt", "matches link/secret.txt"},
		{"cat [[:alpha:]]ink/secret.txt", "matches link/secret.txt"},
		{"cat ?ink/secret.txt", "matches link/secret.txt"},
		{"cat *nk/secret.txt", "matches link/secret.txt"},
		{"cat l'i'[n]k/secret.txt", "matches link/secret.txt"},
		{"cat l\\i*/secret.txt", "matches link/secret.txt"},
		{"cat */secret.txt", "matches link/secret.txt"},
		{"cat [a-z]*/.env", "matches link/.env"},
		{"for f in [!x]ink/*; do cat $f; done", "outside the workspace"},
		{"cat '[x]'*", "matches [x]ln"},
		{"for f in '[x]'*; do cat \"$f\"; done", "matches [x]ln"},
		{"for f in '[x]ln'; do cat $f; done", "outside the workspace"},
		{"cat {link,x}/secret.txt", "brace expansion"},
	},
	// Symlinks followed below the paths named.
	"recursion follows symlinks": {
		{"diff -r d1 d2", "-r follows symlinks"},
		{"diff --recursive d1 d2", "--recursive follows symlinks"},
		{"diff d1 d2", "follows the symlinks"},
		{"grep -R x .", "follows symlinks"},
		{"du -L .", "follows symlinks"},
		{"ls -RL", "follows symlinks"},
		{"find -L . -name x", "follows symlinks"},
		{"find . -follow", "follows symlinks"},
	},
	// File names produced at run time must come from a file list.
	"unchecked file names": {
		{"cat list.txt | xargs cat", "xargs passes its input"},
		{"echo /etc/passwd | xargs cat", "xargs passes its input"},
		{"xargs cat < list.txt", "xargs passes its input"},
		{"find . | xargs cat < list.txt", "xargs passes its input"},
		{"find . -printf '/etc/passwd\\n' | xargs cat", "xargs passes its input"},
		{"grep -h x list.txt | xargs cat", "xargs passes its input"},
		{"find . | sed s/x/y/ | xargs cat", "xargs passes its input"},
		{"find . | grep x list.txt | xargs cat", "xargs passes its input"},
		{"find . | xargs -a list.txt cat", "xargs -a"},
		{"find . | xargs -I{} cat /etc/{}", "whole argument"},
		{"find . | xargs cat /etc/passwd", "outside the workspace"},
		{"git ls-files --format=x | xargs cat", "xargs passes its input"},
		{"echo x | grep -l --label=x x | xargs cat", "xargs passes its input"},
		{"cat $(echo /etc/passwd)", "must be literal"},
		{"cat $(cat list.txt)", "must be literal"},
		{"cat \"$(find . -printf /etc/passwd)\"", "must be literal"},
		{"cat $(find / -name passwd)", "outside the workspace"},
		{"find . -exec cat /etc/{} \\;", "whole argument"},
		{"find . -exec cat /etc/passwd {} +", "outside the workspace"},
		{"find /etc -exec cat {} +", "outside the workspace"},
	},
	"package patterns": {
		{"go list ../other-project/...", "outside the workspace"},
		{"go list /etc/...", "outside the workspace"},
		{"go version -m /bin/ls", "outside the workspace"},
	},
	"home directory": {
		{"cat ~/.ssh/id_rsa", "home directory"},
		{"ls ~", "home directory"},
		{"cd ~ && ls", "home directory"},
		{"cat ~+/../other-project/.env", "home directory"},
	},
}

// legitimate are commands planners need: accepted with and without a
// workspace (sandboxWorld).
var legitimate = []string{
	"find . -name '*.go' | xargs wc -l",
	"git ls-files | xargs grep -l x",
	"go list ./...",
	"go doc fmt",
	"go version",
	"git config --get user.name",
	"git config --list",
	"wc -l $(git ls-files '*.go')",
	"find . -name '*.go' -exec grep -l main {} +",
	"awk '$3 > 1' f",
	// and more of the same kinds
	"find . -name '*.go' -print0 | xargs -0 grep -n TODO",
	"git ls-files | grep _test.go | sort | head -n 20 | xargs wc -l",
	"git ls-files '*.go' | xargs -n 20 grep -c func",
	"rg --files | head",
	"rg -l TODO | xargs wc -l",
	"grep -rl TODO . | xargs head -n 3",
	"wc -l \"$(git ls-files README.md)\"",
	"head -n 5 $(find src -name '*.go')",
	"find . -type f -name '*.md' -exec head -n 3 {} \\;",
	"find src -name '*.go' -execdir wc -l {} +",
	"go list -json ./...",
	"go list -m all",
	"go list -f '{{.ImportPath}}' ./...",
	"go doc -all fmt.Println",
	"go env GOPATH GOMOD GOVERSION",
	"git config --get-regexp 'remote\\..*'",
	"git config get user.name",
	"git config --local --get remote.origin.url",
	"git branch --sort=-committerdate",
	"git branch --list 'feat/*' --sort=refname",
	"git branch -av",
	"git branch --contains HEAD",
	"git tag -l 'v*' --sort=-v:refname",
	"git tag -n5",
	"git log --format='%h %an %s' -n 5",
	"git grep -n -e Provider -- '*.go'",
	"diff -r --no-dereference d1 d2",
	"diff README.md b.txt",
	"sed -n '/^func/p' file.go",
	"sed ':a;N;$!ba;s/\\n/ /g' f",
	"sed -n '/start/,/end/{p;=}' f",
	"sed 's|[/]x|y|' f",
	"awk -F, '{print $1}' f",
	"awk 'NR > 1 && $2 >= 3' f",
	"awk '{ if (1 < $3) print $1 }' f",
	"awk '$1 == \"a\" || $2 == \"b\"' f",
	"cat <<'EOF' | grep x\nhello x\nEOF",
	"grep -c x <<EOF\nx y x\nEOF",
	"for f in *.go; do [ -f \"$f\" ] && wc -l \"$f\"; done",
	"for f in README.md b.txt; do [ \"$f\" != b.txt ] && head -n1 \"$f\"; done",
	"git ls-files | while read -r f; do echo \"$f\"; done",
	"grep -rn TODO --include='*.go' .",
	"ls -la src && cat README.md | head -n 20",
	"cd src && ls && cat main.go",
	"jq '.name, .env' package.json",
	"tail -n 20 README.md",
	"uniq -c README.md",
	"sort -u README.md | uniq -c | sort -rn",
	"echo $(echo hi)",
	"echo $( (ls) )",
	"ls -d .[!.]*",
}

func TestAttackCorpusRefused(t *testing.T) {
	ws := sandboxWorld(t)
	for class, attacks := range attackClasses {
		for _, a := range attacks {
			for _, opts := range [][]Option{nil, {WithWorkspace(ws)}} {
				assertRefused(t, class, a, opts...)
			}
		}
	}
	for class, attacks := range workspaceAttacks {
		for _, a := range attacks {
			assertRefused(t, class, a, WithWorkspace(ws))
		}
	}
}

func assertRefused(t *testing.T, class string, a attack, opts ...Option) {
	t.Helper()
	err := Check(a.cmd, opts...)
	var ce *CommandError
	switch {
	case err == nil:
		t.Errorf("%s: Check(%q) = nil, want a refusal", class, a.cmd)
	case !errors.As(err, &ce):
		t.Errorf("%s: Check(%q) error %T is not a *CommandError", class, a.cmd, err)
	case !strings.Contains(err.Error(), a.want):
		t.Errorf("%s: Check(%q) = %q, want it to mention %q", class, a.cmd, err, a.want)
	}
}

func TestLegitimateCommandsAccepted(t *testing.T) {
	ws := sandboxWorld(t)
	for _, cmd := range legitimate {
		if err := Check(cmd); err != nil {
			t.Errorf("Check(%q) = %v, want accepted", cmd, err)
		}
		if err := Check(cmd, WithWorkspace(ws)); err != nil {
			t.Errorf("Check(%q, WithWorkspace) = %v, want accepted", cmd, err)
		}
	}
}

// TestDenyListInsideWorkspace: when the workspace is the home directory,
// its credentials stay off limits.
func TestDenyListInsideWorkspace(t *testing.T) {
	home := t.TempDir()
	for _, f := range []string{".ssh/id_rsa", ".aws/credentials", "notes.md"} {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := tool.NewWorkspace(home, tool.WithHome(home))
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"cat .ssh/id_rsa", "grep -r key .aws", "cat .*/id_rsa", "find .ssh -name x", "cat */credentials"} {
		if err := Check(cmd, WithWorkspace(ws)); err == nil || !strings.Contains(err.Error(), "holds credentials") {
			t.Errorf("Check(%q) = %v, want the deny list", cmd, err)
		}
	}
	if err := Check("cat notes.md", WithWorkspace(ws)); err != nil {
		t.Errorf("notes.md: %v", err)
	}
}
