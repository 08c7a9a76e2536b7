package shellgate

import (
	"errors"
	"strings"
	"testing"
)

// allowedCommands are accepted without a workspace.
var allowedCommands = []string{
	"ls -la",
	"cat go.mod",
	"head -n 20 main.go | tail -n 5",
	"wc -l *.go",
	"grep -rn 'func main' .",
	"rg -n TODO --glob '*.go'",
	"find . -name '*.go' -not -path './vendor/*'",
	"find . -type f -print",
	"git status --short",
	"git log --oneline -n 10",
	"git diff HEAD~1 -- planning/",
	"git show HEAD:go.mod",
	"git show HEAD@{1}",
	"git branch",
	"git branch --list 'feat/*'",
	"git branch -a -v",
	"git -C . rev-parse --show-toplevel",
	"git --no-pager log -p -- README.md",
	"git ls-files | wc -l",
	"git blame -L 10,20 main.go",
	"git grep -n Provider",
	"git config --get user.name",
	"git stash list",
	"git tag --list 'v*'",
	"pwd && tree -L 2",
	"file main.go; stat go.mod",
	"du -sh . 2>/dev/null",
	"df -h > /dev/null",
	"ls missing 2>&1 | head",
	"echo hello >&2",
	"printf '%s\\n' a b",
	"sort names.txt | uniq -c | sort -rn",
	"cut -d: -f1 /etc/passwd | tr a-z A-Z",
	"diff a.txt b.txt",
	"which go; basename /a/b; dirname /a/b; realpath .",
	"date +%Y-%m-%d",
	"sed -n '1,20p' main.go",
	"sed -e 's/foo/bar/g' -e '/^#/d' file.txt",
	"sed -n '/start/,/end/{p;=}' f",
	"awk -F: '{print $1}' /etc/passwd",
	"find . -name '*.go' | xargs grep -l Tool",
	"cat <<EOF\nhello\nEOF",
	"grep -c x <<< 'x y x'",
	"wc -l < go.mod",
	"ls $(echo .)",
	"diff <(sort a) <(sort b)",
	"for f in a b; do wc -l \"$f\"; done",
	"if grep -q x f; then echo yes; else echo no; fi",
	"(cd planning && ls)",
	"{ ls; pwd; }",
	"! grep -q x f",
	"command -v git",
	"test -f go.mod && echo present",
	"echo ${HOME:-/tmp}",
	"printenv HOME PATH",
	"ps aux; ps -ef",
	"echo $1 $# $? $HOME",
	"time ls",
	"[ -d .git ] && git status",
	"cat $(echo go.mod)",
	"git ls-files | while read -r f; do wc -l \"$f\"; done",
	"date --date yesterday +%s",
	"sed -n 1,5p -- *.go",
	"xargs -n1 -I{} grep x {}",
	"\"l\"s -a",
	"cat <<'EOF'\n$(rm x)\nEOF",
}

func TestCheckAllows(t *testing.T) {
	for _, cmd := range allowedCommands {
		if err := Check(cmd); err != nil {
			t.Errorf("Check(%q) = %v, want allowed", cmd, err)
		}
	}
}

func TestCheckRefuses(t *testing.T) {
	refused := []struct {
		cmd  string
		want string // a fragment the error must contain
	}{
		{"rm -rf x", "rm is not on Plan Mode's read-only allowlist"},
		{"cat > f", "output redirection"},
		{"echo x > f", "output redirection"},
		{"echo x >> f", "output redirection"},
		{"ls &> out.txt", "output redirection"},
		{"ls >| f", "output redirection"},
		{"ls >&out", "output redirection"},
		{"ls 1<>f", "<> opens"},
		{"echo x | tee f", "tee writes"},
		{"echo $(rm -rf x)", "rm"},
		{"echo `rm x`", "rm"},
		{"cat <(rm x)", "rm"},
		{"echo x > >(cat)", "output redirection"},
		{"cat <<EOF > f\nhello\nEOF", "output redirection"},
		{"git checkout -- .", "git checkout can change"},
		{"git reset --hard", "git reset"},
		{"git commit -am x", "git commit"},
		{"git push origin main", "git push"},
		{"git -C . clean -fd", "git clean"},
		{"git stash", "git stash"},
		{"git branch -D main", "git branch"},
		{"git branch newbranch", "git branch"},
		{"git tag v1.0", "git tag"},
		{"git config user.name evil", "git config"},
		{"git -c core.pager='rm -rf x' log", "git -c"},
		{"git diff --output=patch.diff", "--output writes"},
		{"git log --out=f", "--output writes"},
		{"git grep -Ovim x", "git grep -O"},
		{"find . -delete", "find -delete"},
		{"find . -exec rm {} \\;", "find -exec"},
		{"find . -name x -execdir rm {} +", "find -execdir"},
		{"find . -fprint out", "find -fprint"},
		{"find . $(echo -delete)", "find arguments must be literal"},
		{"find . {-delete,}", "find arguments must be literal"},
		{"find . {-del\"ete\",}", "find arguments must be literal"},
		{"rg --hostname-bin=sh x", "rg --hostname-bin"},
		{"python -c 'import os; os.remove(\"x\")'", "python can run arbitrary code"},
		{"python3 script.py", "python3 can run"},
		{"perl -e 'unlink q(x)'", "perl can run"},
		{"node -e 'require(\"fs\").rmSync(\"x\")'", "node can run"},
		{"sh -c 'rm x'", "nested shell"},
		{"bash -c \"rm x\"", "nested shell"},
		{"env rm x", "env with arguments"},
		{"env", "would print environment variables"},
		{"printenv", "would print environment variables"},
		{"printenv AWS_SECRET_ACCESS_KEY", "may print a secret"},
		{"set", "would print environment variables"},
		{"export", "would print environment variables"},
		{"export -p", "would print environment variables"},
		{"declare -p", "would print environment variables"},
		{"echo $OPENAI_API_KEY", "may hold a secret"},
		{"echo \"${GITHUB_TOKEN:-none}\"", "may hold a secret"},
		{"cat <<EOF\n$ANTHROPIC_API_KEY\nEOF", "may hold a secret"},
		{"ps auxe", "ps e and ps -o environ print the environment"},
		{"command rm x", "command CMD runs CMD"},
		{"eval 'rm x'", "eval runs arbitrary code"},
		{"exec rm x", "exec runs"},
		{"source evil.sh", "source runs"},
		{". ./evil.sh", ". runs"},
		{"ls; rm x", "rm"},
		{"ls && rm x", "rm"},
		{"ls || rm x", "rm"},
		{"(rm x)", "rm"},
		{"{ rm x; }", "rm"},
		{"f(){ rm x; }; f", "defining shell functions"},
		{"f(){ ls; }; f", "defining shell functions"},
		{"sed -i s/a/b/ f", "sed -i"},
		{"sed -ni p f", "sed -i"},
		{"sed --in-place=.bak s/a/b/ f", "in-place"},
		{"sed 's/a/b/w out' f", "w/W"},
		{"sed -n '1w out' f", "w/W"},
		{"sed '1e rm x' f", "w/W"},
		{"sed 's/a/rm x/e' f", "w/W"},
		{"sed -f script.sed f", "sed -f"},
		{"sed -n p *.go", "sed arguments must be literal"},
		{"xargs rm", "xargs would run rm"},
		{"find . | xargs -0 rm -f", "xargs would run rm"},
		{"echo -delete | xargs find .", "xargs may run only simple readers"},
		{"xargs sed -n p", "xargs sed"},
		{"VAR=1 rm x", "variable assignment before a command"},
		{"VAR=1 ls", "variable assignment before a command"},
		{"PATH=.; ls", "variable assignments"},
		{"export PATH=.", "declare/export"},
		{"$CMD x", "command name must be a literal"},
		{"\"$(echo rm)\" x", "command name must be a literal"},
		{"/bin/rm x", "bare name"},
		{"./ls", "bare name"},
		{"touch f", "touch is not on"},
		{"mkdir d", "mkdir is not on"},
		{"cp a b", "cp is not on"},
		{"mv a b", "mv is not on"},
		{"chmod +x f", "chmod is not on"},
		{"dd if=/dev/zero of=f", "dd is not on"},
		{"awk '{ system(\"rm x\") }'", "system"},
		{"awk '{ print > \"f\" }' in", "may not contain >"},
		{"awk '{ print | \"sh\" }' in", "awk programs may not contain"},
		{"awk -f prog.awk in", "awk option -f"},
		{"sort -o out in", "sort -o"},
		{"sort -ro out in", "sort -o"},
		{"sort --output=out in", "sort --output"},
		{"sort --compress-program=sh in", "sort --output/--compress-program"},
		{"uniq in out", "uniq INPUT OUTPUT"},
		{"tree -o out.txt", "tree -o"},
		{"file -C -m magic", "file -C"},
		{"date -s '2020-01-01'", "date -s"},
		{"date 010203042026", "sets the system clock"},
		{"printf -v PATH /tmp", "printf -v"},
		{"rg --pre 'rm x' foo", "rg --pre"},
		{"test -v 'a[$(rm x)]'", "test -v"},
		{"[[ -v 'a[$(rm x)]' ]]", "[[ ... ]]"},
		{"echo $(( a[1] ))", "arithmetic"},
		{"(( x = 1 ))", "arithmetic"},
		{"echo ${x:=y}", "assigns a variable"},
		{"echo ${!x}", "indirect expansion"},
		{"for PATH in /tmp; do ls; done", "loop variable"},
		{"sudo ls", "sudo runs another command"},
		{"timeout 5 rm x", "timeout runs another command"},
		{"ls {fd}>/dev/null", "named file descriptors"},
		{"coproc ls", "coprocesses"},
		{"> f", "output redirection"},
		{": > f", "output redirection"},
		{"cat <<EOF\n$(rm x)\nEOF", "rm"},
		{"cat f | sh", "nested shell"},
		{"\\rm x", "rm is not on"},
		{"r''m x", "rm is not on"},
		{"$'\\x72m' x", "command name must be a literal"},
		{"sed -- 's/a/b/w f' x", "w/W"},
		{"sed -n \"$(echo 1w f)\" x", "sed arguments must be literal"},
		{"xargs -I{} sh -c 'rm {}'", "nested shell"},
		{"xargs -L 1 rm", "xargs would run rm"},
		{"while read PATH; do ls; done < f", "lower-case variable names"},
		{"read 'a[$(rm x)]'", "lower-case variable names"},
		{"case x in *) rm x;; esac", "rm"},
		{"[ -f x ] && rm x", "rm"},
		{"echo 'unterminated", "could not be parsed"},
		{"", "empty"},
		{"   ", "empty"},
	}
	for _, tc := range refused {
		err := Check(tc.cmd)
		if err == nil {
			t.Errorf("Check(%q) = nil, want refusal", tc.cmd)
			continue
		}
		var ce *CommandError
		if !errors.As(err, &ce) {
			t.Errorf("Check(%q) error %T is not a *CommandError", tc.cmd, err)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check(%q) = %q, want it to mention %q", tc.cmd, err, tc.want)
		}
	}
}

func TestCheckNamesOffender(t *testing.T) {
	err := Check("ls -la && git status && rm -rf build")
	if err == nil || !strings.Contains(err.Error(), "`rm -rf build`") {
		t.Fatalf("error %v should quote the offending command", err)
	}
}

func TestCheckTooLong(t *testing.T) {
	if err := Check("echo " + strings.Repeat("a", maxCommand)); err == nil {
		t.Fatal("an over-long command was allowed")
	}
}

func TestCheckSedScript(t *testing.T) {
	ok := []string{"p", "1,5p", "$p", "/a/,/b/d", "s/a/b/g", "s|/usr|/opt|gp", `s/a\/b/c/`, "y/abc/xyz/",
		"0,/re/d", "1~2p", "/x/!d", "2q", "/a/I p", ":a;N;ba", "{p;p}", "/x/{s/a/b/;p}", "# comment\np",
		`:a;N;$!ba;s/\n/ /g`, "s|[/]x|y|", "s/[]a]/b/", "s/[^]a]/b/", "s/[[:alpha:]]/x/", ": a\nb a", "b end ; :end"}
	for _, s := range ok {
		if r := checkSedScript(s); r != "" {
			t.Errorf("checkSedScript(%q) = %q, want ok", s, r)
		}
	}
	bad := []string{"w f", "1w f", "$W f", "s/a/b/w f", "s/a/b/gw f", "s/a/b/e", "e rm x", "p;w f",
		"/x/ w f", "r f;w g", "a text;w f", "b end;w f", "s/a/b", "/unterminated", "s/a/b/ w f", "1!w f", "}w f", "y/a/b", "k",
		// GNU sed ends a label at a blank: what follows is a command.
		":a e rm x", ": a e rm x", "b end e rm x", "t x\te rm x", "T x w f",
		// A delimiter inside [...] ends the regex for some seds only.
		"s/[/]/e/", "s/[]/]/x/;e rm x", "s/[[:alpha:]/]/x/", "/[/]/e rm x", "s/[a\n]/x/"}
	for _, s := range bad {
		if r := checkSedScript(s); r == "" {
			t.Errorf("checkSedScript(%q) allowed, want refused", s)
		}
	}
}
