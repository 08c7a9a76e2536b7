package gitguard

import (
	"path/filepath"
	"strings"
)

// UserConfig is where git looks for the user's own configuration, as the
// user's git would find it with this environment (getenv) and home
// directory: GIT_CONFIG_GLOBAL or ~/.gitconfig and
// $XDG_CONFIG_HOME/git/config, and GIT_CONFIG_SYSTEM or /etc/gitconfig
// unless GIT_CONFIG_NOSYSTEM is set.
func UserConfig(getenv func(string) string, home string) Options {
	opt := Options{Home: home}
	if g := getenv("GIT_CONFIG_GLOBAL"); g != "" {
		opt.Global = append(opt.Global, g)
	} else {
		xdg := getenv("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			opt.Global = append(opt.Global, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			opt.Global = append(opt.Global, filepath.Join(home, ".gitconfig"))
		}
	}
	switch v := strings.ToLower(getenv("GIT_CONFIG_NOSYSTEM")); {
	case v != "" && v != "0" && v != "false" && v != "no" && v != "off":
	case getenv("GIT_CONFIG_SYSTEM") != "":
		opt.Global = append(opt.Global, getenv("GIT_CONFIG_SYSTEM"))
	default:
		opt.Global = append(opt.Global, "/etc/gitconfig")
	}
	return opt
}
