package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/picture"
	"github.com/harness9/harness9/tool"
)

// loadImage reads an image file the user named (run --image, or @file in
// the TUI) and prepares it for the model. A relative path is taken from
// the current directory, as a shell would.
//
// A file inside the workdir is opened through the Workspace, like every
// file opened on the model's behalf. A file outside it is allowed, because
// the user chose it on the command line, but never one in the deny list
// (~/.ssh, ~/.aws, the harness's data dir ...): its symlinks are resolved
// first, so a link in /tmp to ~/.ssh/id_ed25519.png is refused too.
func loadImage(ws *tool.Workspace, path string) (llm.Image, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return llm.Image{}, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return llm.Image{}, fmt.Errorf("image %s: %w", path, err)
	}
	if ws.Denied(real) {
		return llm.Image{}, fmt.Errorf("image %s is in a directory harness9 never reads (credentials, its own data); copy the picture somewhere else first", path)
	}
	if rel, err := filepath.Rel(ws.Root(), real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		f, fi, err := ws.Open(abs)
		if err != nil {
			return llm.Image{}, fmt.Errorf("image %s: %w", path, err)
		}
		defer f.Close()
		if fi.IsDir() {
			return llm.Image{}, fmt.Errorf("image %s is a directory", path)
		}
		return picture.Read(f, filepath.Base(real))
	}
	return picture.ReadFile(real)
}

// promptPath turns a path typed in a TUI prompt into one loadImage takes:
// ~/ is the home directory, and a relative path is relative to the
// workdir the session works in.
func promptPath(workdir, path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if !filepath.IsAbs(path) {
		return filepath.Join(workdir, path)
	}
	return path
}

// loadImages loads every --image file; the first failure is a usage error
// that names the file.
func loadImages(ws *tool.Workspace, paths []string) ([]llm.Image, error) {
	var out []llm.Image
	for _, p := range paths {
		im, err := loadImage(ws, p)
		if err != nil {
			return nil, usageErr("--image %s: %v", p, err)
		}
		out = append(out, im)
	}
	return out, nil
}

// checkVision refuses images for a model that cannot see them, before any
// request is made.
func checkVision(rt *wiring, images []llm.Image) error {
	if len(images) == 0 || vision(rt.resolved) {
		return nil
	}
	return usageErr("the model %s does not accept images; choose a model with vision (-m), or if it has vision set vision = true under [providers.%s] in %s",
		rt.cfg.Model, rt.resolved.Name, rt.cfg.File)
}
