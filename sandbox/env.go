package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harness9/harness9/internal/lib/gitguard"
)

// secretMarkers are the name parts that mark an environment variable as a
// secret. Matching is case-insensitive, so lower-case variants such as
// github_token are dropped too.
var secretMarkers = []string{"KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE"}

// IsSecretName reports whether an environment variable's name marks it as a
// secret that no child process of the harness receives.
func IsSecretName(name string) bool {
	upper := strings.ToUpper(name)
	for _, m := range secretMarkers {
		if strings.Contains(upper, m) {
			return true
		}
	}
	return false
}

// DefaultPath is the PATH of a child whose program gave it no environment.
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// BaseEnv returns env, or, when env is nil, the environment of a child
// whose program gave none: PATH=DefaultPath and nothing else. The library
// never hands the process's own environment to a child by itself (unlike
// os/exec's nil Env): a program passes it explicitly (harness9's CLI passes
// the process environment), and it is scrubbed (ScrubEnv) on the way.
func BaseEnv(env []string) []string {
	if env == nil {
		return []string{"PATH=" + DefaultPath}
	}
	return env
}

// ScrubEnv returns environ without secret variables (IsSecretName) and
// without the names in hide, except those in keep. Every child the harness
// starts for the model or a repository (bash, MCP servers, hooks) gets its
// environment through it: whatever a child can read, the model can read
// back through a tool.
func ScrubEnv(environ []string, keep, hide map[string]bool) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if keep[name] || (!hide[name] && !IsSecretName(name)) {
			out = append(out, kv)
		}
	}
	return out
}

// ShellStartupEnv are variables that change how a non-interactive `bash -c`
// starts or reads its command (a startup file, extglob, cd targets, glob
// filters). Confined commands never get them, so the shell reads a command
// the way the caller (and Plan Mode's parse gate) did.
var ShellStartupEnv = []string{"BASH_ENV", "ENV", "BASHOPTS", "SHELLOPTS", "CDPATH", "GLOBIGNORE"}

// dropNames returns env without the variables named.
func dropNames(env []string, names []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, name) {
			out = append(out, kv)
		}
	}
	return out
}

// readOnlyEnvKept are the variables a ReadOnly command inherits; everything
// else is dropped, because a planner needs a locale and a PATH, not the
// user's session.
var readOnlyEnvKept = []string{"PATH", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME", "SHELL", "COLORTERM", "NO_COLOR"}

// gitHardening neutralises what a hostile repository's configuration could
// make git run or reach: fsmonitor, hooks, pagers, editors, external diff,
// credential helpers, transport protocols and signature programs.
// (A diff, filter or merge driver has a name of the repository's choosing:
// under the kernel sandbox it runs confined; without one, HardenGitIn
// switches off those the repository's configuration names.) Overrides
// given through GIT_CONFIG_COUNT win over the repository's .git/config.
// Whatever slips past (a textconv driver, say) still runs inside the kernel
// sandbox.
var gitHardening = [][2]string{
	{"core.fsmonitor", "false"},
	{"core.hooksPath", "/dev/null"},
	{"core.pager", "cat"},
	{"core.editor", "false"},
	{"sequence.editor", "false"},
	{"core.sshCommand", "false"},
	{"core.askPass", "false"},
	{"credential.helper", ""},
	{"protocol.allow", "never"},
	{"gpg.program", "false"},
	{"gpg.ssh.program", "false"},
	{"gpg.x509.program", "false"},
	// Files a repository's configuration can name anywhere, which git then
	// reads and shows in part (`git check-attr -a` prints an attributes
	// file's words).
	{"core.attributesFile", ""},
	{"core.excludesFile", ""},
	{"mailmap.file", ""},
}

// policyEnv builds a confined command's environment from the caller's.
func (s *Sandbox) policyEnv(base []string, p Policy, scratch string) []string {
	env := ScrubEnv(dropNames(base, ShellStartupEnv), s.keepEnv, s.hideEnv)
	set := func(k, v string) { env = setEnv(env, k, v) }
	tmp := filepath.Join(scratch, "tmp")
	switch p {
	case ReadOnly:
		kept := env[:0:0]
		for _, kv := range env {
			name, _, _ := strings.Cut(kv, "=")
			if isKeptReadOnly(name) || s.keepEnv[name] {
				kept = append(kept, kv)
			}
		}
		env = kept
		home := filepath.Join(scratch, "home")
		set("HOME", home)
		set("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
		set("XDG_CACHE_HOME", filepath.Join(scratch, "cache"))
		set("GOCACHE", filepath.Join(scratch, "cache", "go-build"))
		set("GOTOOLCHAIN", "local")
		set("GOPROXY", "off")
		set("GOFLAGS", "-mod=readonly")
		env = HardenGit(env)
	case WorkspaceWrite:
		if s.cacheDir != "" {
			set("GOCACHE", filepath.Join(s.cacheDir, "go-build"))
			set("XDG_CACHE_HOME", filepath.Join(s.cacheDir, "xdg"))
			set("npm_config_cache", filepath.Join(s.cacheDir, "npm"))
			set("PIP_CACHE_DIR", filepath.Join(s.cacheDir, "pip"))
		} else {
			set("GOCACHE", filepath.Join(scratch, "cache", "go-build"))
			set("XDG_CACHE_HOME", filepath.Join(scratch, "cache"))
		}
	}
	set("TMPDIR", tmp)
	set("TMP", tmp)
	set("TEMP", tmp)
	set("PAGER", "cat")
	set("GIT_PAGER", "cat")
	set("GIT_TERMINAL_PROMPT", "0")
	return env
}

func isKeptReadOnly(name string) bool {
	if strings.HasPrefix(name, "LC_") {
		return true
	}
	for _, k := range readOnlyEnvKept {
		if name == k {
			return true
		}
	}
	return false
}

// HardenGit returns env set up so that git, run by the model in a
// repository it must not change (Plan Mode), runs nothing the repository's
// configuration names and reads no configuration but the repository's:
// no system or global configuration, no optional locks, no replace
// objects, and overrides (GIT_CONFIG_COUNT, which win over the
// repository's .git/config) turning off fsmonitor, hooks, pagers, editors,
// credential helpers, transports and signature programs. Commands the
// sandbox starts under ReadOnly get it; a program running read-only
// commands without any sandbox applies it itself.
func HardenGit(env []string) []string { return hardenGit(env, nil) }

// HardenGitIn is HardenGit for commands that run in workdir: the diff,
// filter and merge drivers that the configuration of the repositories
// found there names (gitguard.Drivers) are switched off too. git runs a
// driver whenever an attribute names it, on git status (a filter's clean
// program), git diff (diff.external) and git log -p (a textconv program);
// under the kernel sandbox it runs confined, but a program that runs
// read-only commands without one must not let a repository run it.
// textconv becomes cat (diffs still show), the others nothing, except
// diff.external, which makes git diff fail (git runs it for every file).
func HardenGitIn(env []string, workdir string) []string {
	return hardenGit(env, driverOverrides(gitguard.Drivers(workdir, gitguard.Options{})))
}

func hardenGit(env []string, extra [][2]string) []string {
	for _, kv := range [][2]string{{"GIT_CONFIG_NOSYSTEM", "1"}, {"GIT_CONFIG_GLOBAL", "/dev/null"},
		{"GIT_OPTIONAL_LOCKS", "0"}, {"GIT_NO_REPLACE_OBJECTS", "1"}} {
		env = setEnv(env, kv[0], kv[1])
	}
	return withGitOverrides(env, extra)
}

// driverOverrides are the settings that switch off the driver settings
// keys (gitguard.Drivers).
func driverOverrides(keys []string) [][2]string {
	var out [][2]string
	for _, k := range keys {
		switch {
		case strings.HasSuffix(k, ".textconv"):
			out = append(out, [2]string{k, "cat"})
		case strings.HasPrefix(k, "filter."):
			out = append(out, [2]string{k, ""}, [2]string{k[:strings.LastIndexByte(k, '.')] + ".required", "false"})
		default:
			out = append(out, [2]string{k, ""})
		}
	}
	return out
}

// withGitOverrides appends gitHardening and extra after any
// GIT_CONFIG_COUNT entries already present (those are dropped: a caller's
// overrides must not undo the hardening).
func withGitOverrides(env []string, extra [][2]string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GIT_CONFIG_") || strings.HasPrefix(kv, "GIT_CONFIG_NOSYSTEM=") || strings.HasPrefix(kv, "GIT_CONFIG_GLOBAL=") {
			out = append(out, kv)
		}
	}
	all := append(slices.Clone(gitHardening), extra...)
	out = append(out, fmt.Sprintf("GIT_CONFIG_COUNT=%d", len(all)))
	for i, kv := range all {
		out = append(out, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, kv[1]))
	}
	return out
}

// setEnv sets name in env, replacing every earlier definition.
func setEnv(env []string, name, value string) []string {
	prefix := name + "="
	out := env[:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, prefix) {
			out = append(out, kv)
		}
	}
	return append(out, prefix+value)
}
