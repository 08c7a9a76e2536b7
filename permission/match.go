package permission

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Call describes a tool call by what it acts on, as far as the tool says
// (package tool's Scoped interface): a rule's specifier is matched against
// these, never against the raw input.
type Call struct {
	// Tool is the name the call names.
	Tool string
	// Command is the shell command line of a shell tool's call.
	Command string
	// Path is the file path a file tool's call names, as given.
	Path string
	// URL is the address a fetching tool's call names.
	URL string
}

// matches reports whether r covers c. workdir anchors relative path globs.
func (r Rule) matches(c Call, workdir string) bool {
	if !matchTool(r.Tool, c.Tool) {
		return false
	}
	spec := r.Specifier
	switch {
	case spec == "":
		return true
	case strings.HasPrefix(spec, "domain:"):
		return c.URL != "" && matchDomain(strings.TrimPrefix(spec, "domain:"), c.URL)
	case c.Command != "":
		return false // see Rules.Decide: commands are matched one by one
	case c.Path != "":
		return matchPath(spec, c.Path, workdir)
	}
	return false
}

func matchTool(pattern, name string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(name, p)
	}
	return pattern == name
}

// matchDomain matches the URL's host against domain and its subdomains.
func matchDomain(domain, raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return false
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	domain = strings.ToLower(domain)
	return host == domain || strings.HasSuffix(host, "."+domain)
}

// matchPath matches a call's path against a glob. Both are made absolute
// against the workdir and cleaned, and the symbolic links of their longest
// existing parent are resolved, so "src/../secret/k" and a link into
// secret/ are seen as the file they name. A relative glob is relative to
// the workdir; an absolute one is taken as it is.
func matchPath(glob, path, workdir string) bool {
	if !filepath.IsAbs(glob) {
		glob = filepath.Join(resolve(workdir), glob)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(workdir, path)
	}
	ok, err := doublestar.Match(filepath.ToSlash(glob), filepath.ToSlash(resolve(path)))
	return err == nil && ok
}

// resolve cleans p and resolves the symbolic links of its longest existing
// ancestor; the part that does not exist yet is kept as written.
func resolve(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for dir := p; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if _, err := os.Lstat(dir); err == nil {
			// It exists but cannot be resolved (a dangling link): keep
			// the text, which is what the rule author sees.
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}
