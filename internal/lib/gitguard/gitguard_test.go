package gitguard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/harness9/harness9/internal/lib/gitguard/gitattack"
)

func TestInert(t *testing.T) {
	inert := []string{
		"",
		"[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n",
		"[core]\n\tbare\n[remote \"origin\"]\n\turl = https://example.com/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
		"# comment\n; comment\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n[user]\n\temail = a@b.c\n",
		"[submodule \"lib\"]\n\turl = ./lsrc\n\tactive = true\n[CORE]\n\tFileMode = false\n",
	}
	for _, c := range inert {
		if !Inert([]byte(c)) {
			t.Errorf("Inert(%q) = false, want true", c)
		}
	}
	notInert := []string{
		"[core]\n\tfsmonitor = touch x\n",
		"[core]\n\thooksPath = h\n",
		"[include]\n\tpath = x\n",
		"[includeIf \"gitdir:/\"]\n\tpath = x\n",
		"[alias]\n\tst = !touch x\n",
		"[core] bare = false\n",                                        // a key after the header on its line
		"[core]\n\tbare = false\r\n",                                   // CR
		"\ufeff[core]\n\tbare = false\n",                               // BOM
		"[core]\n\tbare = \"false\"\n",                                 // quotes
		"[core]\n\tbare = false \\\n\tfsmonitor = x\n",                 // continuation
		"[core.x]\n\tbare = false\n",                                   // old-style subsection
		"[remote \"o\\\"\"]\n\turl = x\n",                              // escape in a subsection
		"bare = false\n",                                               // no section
		"[core \"x\"]\n\tbare = false\n",                               // core has no subsections here
		"[remote \"o\"]\n\turl = x\n\treceivepack = touch y\n",         // a program
		"[submodule \"s\"]\n\tupdate = !touch y\n",                     // a program
		"[core]\n\tbare = false\x00\n",                                 // NUL
		"[core]\n\tbare = false # comment\n",                           // inline comment
		"[filter \"lfs\"]\n\tclean = touch y\n",                        // a program
		"[user]\n\tname = x\n[core]\n\tsshCommand = touch y\n",         // a program later on
		"[core]\n\tworktree = ..\n\tpager = touch y\n[user]\n\tname=x", // a pager
	}
	for _, c := range notInert {
		if Inert([]byte(c)) {
			t.Errorf("Inert(%q) = true, want false", c)
		}
	}
}

// What readConfig finds is what git finds, for the keys the guard needs.
func TestReadConfigAgreesWithGit(t *testing.T) {
	r := gitattack.NewRepo(t, true)
	body := "[core]\n\thooksPath = \"my hooks\" # comment\n[include]\n\tpath = a.cfg\n" +
		"[includeIf \"gitdir:/x/\"]\n\tpath = ~/b.cfg\n[Core]\n\tHooksPath = h\\\n2\n[section.Sub]\n\tkey = v ; c\n"
	f := filepath.Join(r.Root, "test.cfg")
	if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range readConfig([]byte(body)) {
		name := st.section + "." + st.key
		if st.sub != "" {
			name = st.section + "." + st.sub + "." + st.key
		}
		got = append(got, name+"="+st.value)
	}
	out := r.Sh(t, ".", "git config --file "+f+" --list")
	want := strings.Split(strings.TrimSpace(out), "\n")
	if !slices.Equal(got, want) {
		t.Errorf("readConfig:\n%q\ngit config --list:\n%q", got, want)
	}
}

// Gitlinks are found in every index format git writes: versions 2, 3
// (extended flags) and 4 (compressed paths), and a split index.
func TestGitlinksInEveryIndexFormat(t *testing.T) {
	r := gitattack.NewRepo(t, false)
	r.Sh(t, ".", "for d in a/deep/one a/deep/two zz; do mkdir -p $d; done && "+
		"h=$(git rev-parse HEAD) && for p in a/deep/one a/deep/two zz; do git update-index --add --cacheinfo 160000,$h,$p; done && "+
		"touch a/deep/file && git add a/deep/file && touch a/intent && git add -N a/intent")
	want := []string{"a/deep/one", "a/deep/two", "zz"}
	for _, step := range []string{"git update-index --index-version 2", "git update-index --index-version 3",
		"git update-index --index-version 4", "git update-index --split-index && touch x && git add x"} {
		r.Sh(t, ".", step)
		got, err := gitlinks(filepath.Join(r.Dir, ".git", "index"), 20)
		slices.Sort(got)
		got = slices.Compact(got)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("after %s: gitlinks = %v, %v; want %v", step, got, err, want)
		}
	}
}

func TestUserConfig(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got := UserConfig(getenv, "/h").Global; !slices.Equal(got, []string{"/h/.config/git/config", "/h/.gitconfig", "/etc/gitconfig"}) {
		t.Errorf("defaults: %v", got)
	}
	env = map[string]string{"GIT_CONFIG_GLOBAL": "/g", "GIT_CONFIG_NOSYSTEM": "1"}
	if got := UserConfig(getenv, "/h").Global; !slices.Equal(got, []string{"/g"}) {
		t.Errorf("GIT_CONFIG_GLOBAL, NOSYSTEM: %v", got)
	}
	env = map[string]string{"XDG_CONFIG_HOME": "/x", "GIT_CONFIG_SYSTEM": "/s"}
	if got := UserConfig(getenv, "/h").Global; !slices.Equal(got, []string{"/x/git/config", "/h/.gitconfig", "/s"}) {
		t.Errorf("XDG, GIT_CONFIG_SYSTEM: %v", got)
	}
}

// Protects covers git's directories, hooks and includes, and nothing else.
func TestProtects(t *testing.T) {
	r := gitattack.NewRepo(t, false)
	r.Sh(t, ".", "mkdir .githooks && git config core.hooksPath .githooks && touch p.cfg && git config include.path ../p.cfg")
	l := Scan(r.Dir, Options{Home: r.Home})
	for _, p := range []string{".git", ".git/config", ".git/HEAD", ".git/hooks/pre-commit", ".githooks/x", "p.cfg",
		"sub/.git", "deep/.Git/config",
		// Spellings a case-insensitive file system (macOS, Windows) opens
		// as the same files.
		".GitHooks/pre-commit", "P.CFG", ".githoo\u212a\u017f/x"} {
		if _, ok := l.Protects(filepath.Join(r.Dir, p)); !ok {
			t.Errorf("%s is not protected", p)
		}
	}
	for _, p := range []string{"a.txt", ".gitignore", ".github/x", "src/config", ".githooks2/x", "p.cfg.bak"} {
		if what, ok := l.Protects(filepath.Join(r.Dir, p)); ok {
			t.Errorf("%s is protected (%s)", p, what)
		}
	}
}
