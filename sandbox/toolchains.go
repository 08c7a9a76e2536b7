package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// homeToolchains are directories under the home directory where version
// managers and language toolchains install compilers, interpreters and
// their module caches. They are readable under ReadOnly so that `go list`,
// `python3 -c` or `cargo metadata` work while planning; the rest of the
// home directory is not.
var homeToolchains = []string{
	"go", "sdk", ".pyenv", ".cargo", ".rustup", ".nvm", ".volta", ".bun", ".deno",
	".sdkman", ".rbenv", ".asdf", ".local/bin", ".local/lib", ".local/share/mise",
}

// DetectToolchains returns the toolchain directories a planner's commands
// need that the system directories do not cover: the known toolchain
// directories under home that exist, and every directory on path (a PATH
// value) outside home and the system directories. A PATH entry inside home
// that is not a known toolchain directory is added by itself, not its
// parent, so ~/bin does not open the whole home directory.
func DetectToolchains(home, path string) []string {
	var out []string
	if home != "" {
		for _, d := range homeToolchains {
			p := filepath.Join(home, d)
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				out = append(out, p)
			}
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			continue
		}
		if underSystem(real) {
			continue
		}
		if strings.HasPrefix(real, "/nix/") {
			out = append(out, "/nix") // store paths reference each other freely
			continue
		}
		out = append(out, real)
	}
	return out
}

// systemDirs are readable and executable under both policies when present.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"}

func underSystem(p string) bool {
	for _, d := range systemDirs {
		if within(d, p) {
			return true
		}
	}
	return false
}
