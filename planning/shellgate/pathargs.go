package shellgate

import (
	"os"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// How the allowlisted commands take file paths. By default every operand
// (non-option word) is a path the command reads. The tables only have to be
// right in one direction: an option missing from shortVal/long leaves its
// value an operand, checked as a path, which refuses more, never less. A
// value option listed by mistake would hide a path behind it, which is why
// such values are still refused when they name an existing location outside
// the workspace (maybePath).

// optArg is a long option that takes n separate values (--arg NAME VALUE
// takes 2); with path set, the last one is a file.
type optArg struct {
	n    int
	path bool
}

type argSpec struct {
	noPaths       bool     // no argument is ever opened as a file (echo, printf)
	operandsMaybe bool     // operands are not files (date +FORMAT)
	script        bool     // the first operand is a pattern, script or program...
	scriptShort   string   // ...unless one of these short options supplies it (grep -e, -f)
	scriptLong    []string // ...or one of these long options (unique prefixes count)
	shortVal      string   // short options taking a value (attached or the next word)
	shortPath     string   // those whose value is a file
	long          map[string]optArg
	follow        string   // short options that follow symlinks out of the tree
	followLong    []string // long ones
	followHint    string   // what to use instead
	// noFollow are options that stop the following (diff --no-dereference);
	// dirFollows says directory operands are read entry by entry,
	// following symlinks, unless one is given (diff a/ b/).
	noFollow   []string
	dirFollows bool
}

func vals(names ...string) map[string]optArg {
	m := make(map[string]optArg, len(names))
	for _, n := range names {
		m[n] = optArg{n: 1}
	}
	return m
}

func with(m map[string]optArg, name string, o optArg) map[string]optArg {
	m[name] = o
	return m
}

var (
	noPathSpec = &argSpec{noPaths: true}
	grepSpec   = &argSpec{script: true, scriptShort: "ef", scriptLong: []string{"--regexp", "--file"},
		shortVal: "ABCDdefm", shortPath: "f",
		long: with(with(vals("--regexp", "--max-count", "--after-context", "--before-context", "--context",
			"--directories", "--devices", "--label", "--include", "--exclude", "--exclude-dir", "--binary-files",
			"--group-separator"), "--file", optArg{1, true}), "--exclude-from", optArg{1, true}),
		follow: "R", followLong: []string{"--dereference-recursive"},
		followHint: "use grep -r, which does not follow symlinks below the paths you name"}
	rgSpec = &argSpec{script: true, scriptShort: "ef", scriptLong: []string{"--regexp", "--file", "--files"},
		shortVal: "ABCEMTdefgjmrt", shortPath: "f",
		long: with(with(vals("--regexp", "--glob", "--iglob", "--type", "--type-not", "--type-add", "--max-depth",
			"--max-count", "--replace", "--context", "--after-context", "--before-context", "--sort", "--sortr",
			"--threads", "--encoding", "--max-columns", "--max-filesize", "--colors", "--color", "--engine",
			"--path-separator", "--context-separator"), "--file", optArg{1, true}), "--ignore-file", optArg{1, true}),
		follow: "L", followLong: []string{"--follow"}, followHint: "search without -L/--follow"}
	gitSpec = &argSpec{shortVal: "fSX", shortPath: "fSX", long: map[string]optArg{
		"--file": {1, true}, "--contents": {1, true}, "--ignore-revs-file": {1, true}, "--exclude-from": {1, true}}}
	gitGrepSpec = &argSpec{script: true, scriptShort: "ef", shortVal: "ABCefm", shortPath: "f",
		long: vals("--max-depth", "--threads", "--context", "--after-context", "--before-context", "--max-count")}
)

var pathSpecs = sync.OnceValue(func() map[string]*argSpec {
	m := map[string]*argSpec{
		"grep": grepSpec, "egrep": grepSpec, "fgrep": grepSpec, "rg": rgSpec,
		"sed": {script: true, scriptShort: "e", scriptLong: []string{"--expression"}, shortVal: "el",
			long: vals("--expression", "--line-length")},
		"jq": {script: true, scriptShort: "f", scriptLong: []string{"--from-file"}, shortVal: "fL", shortPath: "fL",
			long: map[string]optArg{"--from-file": {1, true}, "--arg": {2, false}, "--argjson": {2, false},
				"--slurpfile": {2, true}, "--rawfile": {2, true}, "--indent": {1, false}}},
		"cut":    {shortVal: "bcdf", long: vals("--bytes", "--characters", "--delimiter", "--fields", "--output-delimiter")},
		"paste":  {shortVal: "d", long: vals("--delimiters")},
		"join":   {shortVal: "12aejotv"},
		"column": {shortVal: "cos", long: vals("--separator", "--output-separator")},
		"sort": {shortVal: "kSt", long: with(vals("--key", "--field-separator", "--buffer-size", "--parallel"),
			"--random-source", optArg{1, true})},
		"uniq": {shortVal: "fsw", long: vals("--skip-fields", "--skip-chars", "--check-chars")},
		"head": {shortVal: "nc", long: vals("--lines", "--bytes")},
		"tail": {shortVal: "ncs", long: vals("--lines", "--bytes", "--sleep-interval", "--pid")},
		"du": {shortVal: "BdtX", shortPath: "X", long: with(vals("--max-depth", "--exclude", "--block-size", "--threshold", "--time-style"),
			"--exclude-from", optArg{1, true}), follow: "L", followLong: []string{"--dereference"}, followHint: "use du without -L"},
		"ls": {shortVal: "IwT", long: vals("--ignore", "--hide"), follow: "L", followLong: []string{"--dereference"},
			followHint: "use ls without -L"},
		"tree": {shortVal: "LIP", long: vals("--filelimit", "--charset", "--timefmt", "--sort"), follow: "l", followHint: "use tree without -l"},
		"file": {shortVal: "eFmP", shortPath: "m", long: with(vals("--separator", "--exclude", "--parameter"), "--magic-file", optArg{1, true})},
		"diff": {shortVal: "CDFILUXx", shortPath: "X", long: with(with(with(vals("--label", "--exclude", "--ignore-matching-lines", "--show-function-line"),
			"--exclude-from", optArg{1, true}), "--from-file", optArg{1, true}), "--to-file", optArg{1, true}),
			follow: "r", followLong: []string{"--recursive"}, noFollow: []string{"--no-dereference"}, dirFollows: true,
			followHint: "add --no-dereference, so diff compares symlinks instead of following them"},
		"cmp":      {shortVal: "in"},
		"od":       {shortVal: "AjNSt"},
		"hexdump":  {shortVal: "efns", shortPath: "f"},
		"strings":  {shortVal: "ntTe"},
		"nl":       {shortVal: "bdfhilnsvw"},
		"fold":     {shortVal: "w"},
		"expand":   {shortVal: "t"},
		"unexpand": {shortVal: "t"},
		"tac":      {shortVal: "s"},
		"stat":     {shortVal: "c", long: vals("--format", "--printf")},
		"realpath": {long: map[string]optArg{"--relative-to": {1, true}, "--relative-base": {1, true}}},
		"date": {operandsMaybe: true, shortVal: "dfr", shortPath: "fr",
			long: map[string]optArg{"--date": {1, false}, "--file": {1, true}, "--reference": {1, true}}},
	}
	for _, n := range []string{"awk", "gawk", "mawk", "nawk"} {
		m[n] = &argSpec{script: true, shortVal: "Fv", long: vals("--field-separator", "--assign")}
	}
	for _, n := range []string{"echo", "printf", "which", "type", "basename", "dirname", "true", "false", ":",
		"whoami", "id", "uname", "nproc", "seq", "command", "read", "printenv", "ps", "pwd", "tr", "env"} {
		m[n] = noPathSpec
	}
	return m
})

// isOption reports whether a word is an option rather than an operand.
func isOption(v string) bool { return len(v) > 1 && v[0] == '-' }

// longArg finds the long option a word names: an exact name, or for a path
// option (whose value is checked as strictly as an operand) a unique prefix.
func (sp *argSpec) longArg(name string) (optArg, bool) {
	if o, ok := sp.long[name]; ok {
		return o, true
	}
	for full, o := range sp.long {
		if o.path && longOpt(name, full) {
			return o, true
		}
	}
	return optArg{}, false
}

// generic checks a command's arguments as sp describes them, and returns
// the operands it reads as files (not its pattern or script).
func (s *pathChecker) generic(c *syntax.CallExpr, sp *argSpec, args []arg) ([]arg, error) {
	scriptGiven := !sp.script
	follows := ""
	for _, a := range args {
		if !a.static || !isOption(a.value) {
			continue
		}
		v := a.value
		if v == "--" {
			break
		}
		if strings.HasPrefix(v, "--") {
			name, _, _ := strings.Cut(v, "=")
			if longOpt(name, sp.noFollow...) {
				continue
			}
			if longOpt(name, sp.followLong...) {
				follows = name
			}
			scriptGiven = scriptGiven || longOpt(name, sp.scriptLong...)
			continue
		}
		if i := strings.IndexAny(v[1:], sp.follow); sp.follow != "" && i >= 0 {
			follows = "-" + string(v[1+i])
		}
		// Over-recognised on purpose: a letter inside an attached value
		// counts too, which only turns the pattern into a checked path.
		scriptGiven = scriptGiven || (sp.scriptShort != "" && strings.ContainsAny(v[1:], sp.scriptShort))
	}
	if follows != "" && !s.stopsFollowing(sp, args) {
		return nil, s.refuseFollow(c, follows, sp)
	}
	var operands []arg
	endOpts := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.value
		switch {
		case !a.literal() || endOpts || !isOption(v): // a glob (-*) names files
			operands = append(operands, a)
			continue
		case v == "--":
			endOpts = true
			continue
		case strings.HasPrefix(v, "--"):
			name, val, hasVal := strings.Cut(v, "=")
			o, known := sp.longArg(name)
			if hasVal {
				kind := maybePath
				if known {
					kind = kindOf(o.path)
				}
				if err := s.value(c, val, kind); err != nil {
					return nil, err
				}
				continue
			}
			for k := 1; known && k <= o.n && i+1 < len(args); k++ {
				i++
				kind := optValue
				if o.path && k == o.n {
					kind = mustPath
				}
				if err := s.word(c, args[i].w, kind); err != nil {
					return nil, err
				}
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			if strings.IndexByte(sp.shortVal, v[j]) < 0 {
				continue
			}
			kind := kindOf(strings.IndexByte(sp.shortPath, v[j]) >= 0)
			var err error
			if j+1 < len(v) {
				err = s.value(c, v[j+1:], kind)
			} else if i+1 < len(args) {
				i++
				err = s.word(c, args[i].w, kind)
			}
			if err != nil {
				return nil, err
			}
			break
		}
		if err := s.attachedValues(c, v); err != nil {
			return nil, err
		}
	}
	var files []arg
	for k, a := range operands {
		kind := mustPath
		if sp.operandsMaybe || (k == 0 && !scriptGiven) {
			kind = maybePath
		}
		if a.runtime {
			if s.unconfined {
				return nil, &CommandError{Command: printNode(c), Path: a.value, Reason: runtimeNames}
			}
			continue // a file name from a file list (find -exec's {})
		}
		if err := s.word(c, a.w, kind); err != nil {
			return nil, err
		}
		if kind == mustPath && sp.dirFollows && a.literal() && !s.stopsFollowing(sp, args) && s.isDir(a.value) {
			return nil, s.refuseFollow(c, a.value, sp)
		}
		if kind == mustPath {
			files = append(files, a)
		}
	}
	return files, nil
}

// stopsFollowing reports whether an option turning symlink following off
// (diff --no-dereference) is given.
func (s *pathChecker) stopsFollowing(sp *argSpec, args []arg) bool {
	for _, a := range args {
		if a.static && a.value == "--" {
			break
		}
		if a.static && longOpt(a.value, sp.noFollow...) {
			return true
		}
	}
	return false
}

// isDir reports whether p is a directory from some base.
func (s *pathChecker) isDir(p string) bool {
	for _, b := range s.bases {
		if fi, err := os.Stat(join(b, p)); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

// attachedValues is a safety net for short options the tables do not know:
// whatever could be an attached value (-f/etc/passwd, -rf~/.x) must not
// name a location outside the workspace. It looks at the values a cluster
// of up to 14 letters could carry and at every one starting like a path,
// and refuses option words too long or too path-like to check.
func (s *pathChecker) attachedValues(c *syntax.CallExpr, v string) error {
	const maxChecked = 32
	var starts []int
	for j := 2; j < len(v); j++ {
		if j < 16 || strings.IndexByte("/~.", v[j]) >= 0 {
			starts = append(starts, j)
		}
	}
	if len(v) > 1024 || len(starts) > maxChecked {
		return &CommandError{Command: printNode(c), Path: v,
			Reason: "the option is too long to check for attached paths; pass paths as separate arguments"}
	}
	for _, j := range starts {
		if err := s.checkMaybe(c, v[j:], optValue); err != nil {
			return err
		}
	}
	return nil
}

func kindOf(path bool) checkKind {
	if path {
		return mustPath
	}
	return optValue
}

func (s *pathChecker) refuseFollow(c *syntax.CallExpr, opt string, sp *argSpec) error {
	what := opt + " follows symlinks"
	if !strings.HasPrefix(opt, "-") {
		what = "comparing the directory " + opt + " follows the symlinks in it"
	}
	return &CommandError{Command: printNode(c), Path: opt,
		Reason: what + ", which can lead out of the workspace; " + sp.followHint}
}
