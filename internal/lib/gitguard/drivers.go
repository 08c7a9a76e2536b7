package gitguard

import (
	"path/filepath"
	"slices"
)

// driverKeys are the keys of a driver section ("diff.<name>.textconv")
// that name a program. git runs it when an attribute names the driver
// (.gitattributes, .git/info/attributes) on a path that git status, git
// diff, git log -p or git blame reads: no hook or option is needed.
var driverKeys = map[string][]string{
	"diff":   {"textconv", "command"},
	"filter": {"clean", "smudge", "process"},
	"merge":  {"driver"},
}

// Drivers returns the program settings of the configuration files git
// reads for the repositories found beneath root and around it, as git
// names them ("diff.x.textconv", "filter.lfs.clean", "diff.external"),
// each once. A program that runs git without a kernel sandbox overrides
// them (GIT_CONFIG_COUNT) so that nothing a repository configured runs:
// unlike core.fsmonitor or the pager, a driver has a name of the
// repository's choosing and cannot be switched off without knowing it.
// Repositories that are not found (one nested in a directory of the
// worktree that is not a submodule) are not read.
func Drivers(root string, opt Options) []string {
	var out []string
	for _, f := range Scan(root, opt).configs {
		if slices.Contains(opt.Global, f) {
			continue // the user's own, which such a program does not read
		}
		b, err := readRegular(f, maxConfig)
		if err != nil {
			// A link to a configuration file: git follows it.
			if t, terr := filepath.EvalSymlinks(f); terr == nil {
				b, err = readRegular(t, maxConfig)
			}
			if err != nil {
				continue
			}
		}
		for _, st := range readConfig(b) {
			var key string
			switch {
			case st.section == "diff" && st.sub == "" && st.key == "external":
				key = "diff.external"
			case st.sub != "" && slices.Contains(driverKeys[st.section], st.key):
				key = st.section + "." + st.sub + "." + st.key
			default:
				continue
			}
			if !slices.Contains(out, key) {
				out = append(out, key)
			}
		}
	}
	return out
}
