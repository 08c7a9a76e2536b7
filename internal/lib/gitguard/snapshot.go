package gitguard

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// What a command may change, judged after it ran (Restore):
//   - a configuration file may change only into an inert one (Inert);
//   - a hook may appear only as a sample (name.sample, which git never runs);
//   - a hooks directory, a .git directory and a commondir file leading to a
//     git directory already guarded may appear (git init, git submodule add,
//     git worktree add); a .git file or link may appear when it leads to a
//     git directory beneath the root, whose own files are then judged;
//   - nothing else that was recorded may change: it is put back.
// What was not allowed is undone: files and links removed or written back,
// directories moved aside (never deleted, they may hold the command's work).

// maxKept is the largest file whose content is kept to be written back;
// larger ones are recorded by digest and removed if they change.
const maxKept = 8 << 20

type kind uint8

const (
	absent kind = iota
	regular
	dir
	link
	other
)

type entry struct {
	kind   kind
	mode   fs.FileMode // permission bits of a regular file
	body   []byte      // content of a regular file up to maxKept
	sum    [32]byte    // digest of a regular file
	big    bool        // body not kept
	target string      // a link's target
}

func (e entry) equal(o entry) bool {
	if e.kind != o.kind {
		return false
	}
	switch e.kind {
	case regular:
		return e.mode == o.mode && e.sum == o.sum
	case link:
		return e.target == o.target
	}
	return true
}

// look records what is at p now.
func look(p string) entry {
	fi, err := os.Lstat(p)
	switch {
	case err != nil:
		return entry{kind: absent}
	case fi.IsDir():
		return entry{kind: dir}
	case fi.Mode()&fs.ModeSymlink != 0:
		t, _ := os.Readlink(p)
		return entry{kind: link, target: t}
	case !fi.Mode().IsRegular():
		return entry{kind: other}
	}
	e := entry{kind: regular, mode: fi.Mode().Perm()}
	b, err := readRegular(p, maxKept)
	switch {
	case err == nil:
		e.body, e.sum = b, sha256.Sum256(b)
	default:
		// Too large (or unreadable): keep a digest that changes with it
		// (the change time too: size, inode and modification time are all
		// a command's to keep).
		e.big = true
		ctime, _ := changeTime(fi)
		e.sum = sha256.Sum256(fmt.Appendf(nil, "%d %d %v %d", fi.Size(), inode(fi), fi.ModTime().UnixNano(), ctime))
	}
	return e
}

// Snapshot is the recorded state of what git reads beneath a root.
type Snapshot struct {
	root    string
	opt     Options
	entries map[string]entry
	roles   map[string]Role
}

// Take records what git reads beneath root (absolute, links resolved).
func Take(root string, opt Options) *Snapshot {
	root = filepath.Clean(root)
	s := &Snapshot{root: root, opt: opt, entries: map[string]entry{}, roles: map[string]Role{}}
	for _, sl := range Scan(root, opt).Slots() {
		s.entries[sl.Path] = look(sl.Path)
		s.roles[sl.Path] = sl.Role
	}
	return s
}

// Fix is one thing Restore undid.
type Fix struct {
	Path   string // relative to the root
	Action string // what was done, for people
}

func (f Fix) String() string { return f.Path + " (" + f.Action + ")" }

// Restore undoes the changes a command was not allowed to make since Take
// and says what it undid. It must run when nothing else writes beneath the
// root (the command's processes have ended).
func (s *Snapshot) Restore() []Fix {
	r := &restorer{s: s, judged: map[string]bool{}}
	root, err := os.OpenRoot(s.root)
	if err != nil {
		return nil
	}
	defer root.Close()
	r.fsroot = root
	paths := slices.Sorted(maps.Keys(s.entries))
	for _, p := range paths {
		r.judged[p] = true
		if r.under(p) {
			continue
		}
		r.judge(p, s.roles[p], s.entries[p], nil)
	}
	// What appeared: .git entries first, since what they lead to is judged
	// next with the layout they make.
	for round := 0; round < 2*maxDepth; round++ {
		l := Scan(s.root, s.opt)
		var fresh []Slot
		for _, sl := range l.Slots() {
			if !r.judged[sl.Path] {
				fresh = append(fresh, sl)
			}
		}
		if len(fresh) == 0 {
			break
		}
		if slices.ContainsFunc(fresh, func(sl Slot) bool { return sl.Role == Pointer }) {
			fresh = slices.DeleteFunc(fresh, func(sl Slot) bool { return sl.Role != Pointer })
		}
		for _, sl := range fresh {
			r.judged[sl.Path] = true
			if !r.under(sl.Path) {
				r.judge(sl.Path, sl.Role, entry{kind: absent}, l)
			}
		}
	}
	return r.fixes
}

type restorer struct {
	s      *Snapshot
	fsroot *os.Root
	judged map[string]bool
	gone   []string // directories whose recorded content is not restored
	fixes  []Fix
}

// under reports whether p lies in a directory that was replaced and not
// put back (its recorded content has nowhere to go).
func (r *restorer) under(p string) bool {
	for _, g := range r.gone {
		if p != g && within(g, p) {
			return true
		}
	}
	return false
}

// judge compares what is at p with what was recorded and undoes a change
// p's role does not allow. l is the current layout, for new entries.
func (r *restorer) judge(p string, role Role, was entry, l *Layout) {
	now := look(p)
	if was.equal(now) {
		return
	}
	if role == Dir && now.kind == absent {
		r.gone = append(r.gone, p) // deleted: what it held is gone with it
		return
	}
	if r.allowed(p, role, was, now, l) {
		return
	}
	rel := r.rel(p)
	var what []string
	switch now.kind {
	case absent:
	case dir:
		aside, err := r.moveAside(rel)
		if err != nil {
			r.fixes = append(r.fixes, Fix{rel, "could not be undone: " + errText(err)})
			return
		}
		what = append(what, "moved to "+aside)
	default:
		if err := r.fsroot.Remove(rel); err != nil {
			r.fixes = append(r.fixes, Fix{rel, "could not be removed: " + errText(err)})
			return
		}
		if was.kind == absent || was.kind != now.kind {
			what = append(what, "removed")
		}
	}
	switch was.kind {
	case regular:
		if was.big {
			what = append(what, "its earlier content was too large to keep")
		} else if err := r.writeBack(rel, was); err != nil {
			what = append(what, "could not be written back: "+errText(err))
		} else {
			what = append(what, "restored")
		}
	case link:
		if err := r.fsroot.Symlink(was.target, rel); err != nil {
			what = append(what, "could not be restored: "+errText(err))
		} else {
			what = append(what, "restored")
		}
	case dir:
		if role != HookDir {
			// A git directory (or a directory leading to one) replaced:
			// one holding only what was recorded would not be a
			// repository, so it is not recreated.
			r.gone = append(r.gone, p)
			what = append(what, "the original directory is no longer there")
		} else if err := r.fsroot.Mkdir(rel, 0o755); err != nil {
			r.gone = append(r.gone, p)
			what = append(what, "could not be recreated: "+errText(err))
		} else {
			what = append(what, "restored")
		}
	}
	r.fixes = append(r.fixes, Fix{rel, strings.Join(what, ", ")})
}

// allowed reports whether a change at p is one its role permits.
func (r *restorer) allowed(p string, role Role, was, now entry, l *Layout) bool {
	switch role {
	case Config:
		return now.kind == regular && !now.big && Inert(now.body) && r.worktreesInside(p, now.body)
	case Hook:
		return was.kind == absent && now.kind == regular && strings.HasSuffix(filepath.Base(p), ".sample")
	case HookDir:
		return was.kind == absent && now.kind == dir
	case Dir:
		// Only as a directory: a link in its place would lead git (and
		// this guard's own look beneath it) somewhere else.
		return was.kind == absent && now.kind == dir
	case Pointer:
		if was.kind != absent {
			return false
		}
		if now.kind == dir {
			return true
		}
		d := gitdirOf(p)
		return (now.kind == regular || now.kind == link) && d != "" && within(r.s.root, d)
	case CommonDir:
		if was.kind != absent || now.kind != regular || l == nil {
			return false
		}
		c := realDir(resolveFrom(filepath.Dir(p), gitPath(now.body)))
		return c != "" && l.isGitdir(c)
	}
	return false
}

// worktreesInside reports whether every core.worktree the configuration
// file at p sets leads beneath the root, links resolved: git looks for
// submodules and a relative core.hooksPath beneath the worktree, and a
// directory outside the root that commands can write (the per-project
// cache) is beyond what this guard watches.
func (r *restorer) worktreesInside(p string, body []byte) bool {
	for _, st := range readConfig(body) {
		if st.section != "core" || st.key != "worktree" {
			continue
		}
		wt := resolveFrom(filepath.Dir(p), st.value)
		if real, err := filepath.EvalSymlinks(wt); err == nil {
			wt = real
		}
		if !within(r.s.root, filepath.Clean(wt)) {
			return false
		}
	}
	return true
}

// writeBack recreates a regular file, in a directory that must be a real
// directory beneath the root (never through a link).
func (r *restorer) writeBack(rel string, e entry) error {
	if err := r.realParent(rel); err != nil {
		return err
	}
	f, err := r.fsroot.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, e.mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(e.body); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(e.mode); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// realParent checks that every directory above rel is a directory, not a
// link.
func (r *restorer) realParent(rel string) error {
	dir := filepath.Dir(rel)
	if dir == "." {
		return nil
	}
	parts := strings.Split(dir, string(filepath.Separator))
	for i := range parts {
		fi, err := r.fsroot.Lstat(filepath.Join(parts[:i+1]...))
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return errors.New("its directory was replaced")
		}
	}
	return nil
}

// moveAside renames a directory standing where it must not, next to where
// it was, and returns its new name.
func (r *restorer) moveAside(rel string) (string, error) {
	for n := 1; n < 100; n++ {
		aside := rel + ".refused-by-harness9"
		if n > 1 {
			aside += fmt.Sprintf("-%d", n)
		}
		if _, err := r.fsroot.Lstat(aside); err == nil {
			continue
		}
		return aside, r.fsroot.Rename(rel, aside)
	}
	return "", errors.New("no free name to move it to")
}

func (r *restorer) rel(p string) string {
	rel, err := filepath.Rel(r.s.root, p)
	if err != nil {
		return p
	}
	return rel
}

// errText is an error without the absolute paths os errors carry.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}
