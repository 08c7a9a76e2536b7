package gitguard

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Submodules are found through the index, not .gitmodules: git status
// recurses into every gitlink (mode 160000) whose directory holds a .git,
// and runs git there with that repository's configuration. The index is
// writable by any command that may run git add, so a command can add a
// gitlink and a sub/.git pointing at a configuration of its choosing.

const (
	maxIndexBytes = 512 << 20
	maxGitlinks   = 10000
	modeGitlink   = 0o160000
)

var errIndex = errors.New("not a git index this reader knows")

// indexCache keeps the gitlinks of index files by identity, so an index
// that has not changed since the last look is not parsed again. The
// identity includes the inode's change time: size, inode and modification
// time are all a command's to keep (an index rewritten in place and given
// its old time with touch), the change time is not.
var indexCache struct {
	sync.Mutex
	m map[string]indexEntry
}

type indexEntry struct {
	size  int64
	mtime time.Time
	ctime int64
	ino   uint64
	links []string
}

// gitlinks returns the paths (slash-separated, relative to the worktree) of
// the gitlinks in the index file at path, including those of a split
// index's shared part. hashLen is the object name length (20, or 32 for
// sha256 repositories).
func gitlinks(path string, hashLen int) ([]string, error) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, err
	}
	if fi.Size() > maxIndexBytes {
		return nil, errors.New("the index is too large to read")
	}
	key := path
	ino := inode(fi)
	ctime, cacheable := changeTime(fi)
	indexCache.Lock()
	if e, ok := indexCache.m[key]; ok && cacheable && e.size == fi.Size() && e.mtime.Equal(fi.ModTime()) && e.ctime == ctime && e.ino == ino {
		indexCache.Unlock()
		return e.links, nil
	}
	indexCache.Unlock()
	b, err := readRegular(path, maxIndexBytes)
	if err != nil {
		return nil, err
	}
	links, shared, err := parseIndex(b, hashLen)
	if err != nil {
		return nil, err
	}
	if shared != "" {
		more, _, err := func() ([]string, string, error) {
			sb, err := readRegular(filepath.Join(filepath.Dir(path), "sharedindex."+shared), maxIndexBytes)
			if err != nil {
				return nil, "", err
			}
			return parseIndex(sb, hashLen)
		}()
		if err != nil {
			return nil, err
		}
		links = append(links, more...)
	}
	indexCache.Lock()
	if indexCache.m == nil || len(indexCache.m) > 64 {
		indexCache.m = map[string]indexEntry{}
	}
	indexCache.m[key] = indexEntry{size: fi.Size(), mtime: fi.ModTime(), ctime: ctime, ino: ino, links: links}
	indexCache.Unlock()
	return links, nil
}

// parseIndex reads the gitlink paths of an index (versions 2 to 4) and the
// name of the shared index a split index refers to ("" for none).
func parseIndex(b []byte, hashLen int) (links []string, shared string, err error) {
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return nil, "", errIndex
	}
	version := binary.BigEndian.Uint32(b[4:8])
	if version < 2 || version > 4 {
		return nil, "", errIndex
	}
	n := binary.BigEndian.Uint32(b[8:12])
	off := 12
	var prev []byte
	for k := uint32(0); k < n; k++ {
		fixed := 40 + hashLen + 2
		if off+fixed > len(b) {
			return nil, "", errIndex
		}
		mode := binary.BigEndian.Uint32(b[off+24 : off+28])
		flags := binary.BigEndian.Uint16(b[off+40+hashLen : off+fixed])
		if version >= 3 && flags&0x4000 != 0 {
			fixed += 2
		}
		p := off + fixed
		var name []byte
		if version == 4 {
			strip, used := varint(b[p:])
			if used == 0 || strip > uint64(len(prev)) {
				return nil, "", errIndex
			}
			p += used
			end := indexByte(b, p)
			if end < 0 {
				return nil, "", errIndex
			}
			name = append(prev[:len(prev)-int(strip):len(prev)-int(strip)], b[p:end]...)
			prev = name
			off = end + 1
		} else {
			n := int(flags & 0xfff) // the name's length, unless it is longer
			if n == 0xfff {
				n = indexByte(b, p) - p
			}
			if n < 0 || p+n >= len(b) {
				return nil, "", errIndex
			}
			name = b[p : p+n]
			off += (fixed + n + 8) &^ 7
		}
		if mode&0o170000 == modeGitlink {
			links = append(links, string(name))
			if len(links) > maxGitlinks {
				return nil, "", errors.New("the index has too many submodules to check")
			}
		}
	}
	// Extensions: a split index names its shared part in "link".
	for off+8 <= len(b)-hashLen {
		sig := string(b[off : off+4])
		size := int(binary.BigEndian.Uint32(b[off+4 : off+8]))
		off += 8
		if size < 0 || off+size > len(b) {
			break
		}
		if sig == "link" && size >= hashLen {
			shared = hex.EncodeToString(b[off : off+hashLen])
		}
		off += size
	}
	return links, shared, nil
}

// varint decodes the offset encoding of index version 4.
func varint(b []byte) (uint64, int) {
	var v uint64
	for i, c := range b {
		if i > 9 {
			return 0, 0
		}
		if i > 0 {
			v++
		}
		v = v<<7 | uint64(c&127)
		if c&128 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

func indexByte(b []byte, from int) int {
	if from > len(b) {
		return -1
	}
	if i := bytes.IndexByte(b[from:], 0); i >= 0 {
		return from + i
	}
	return -1
}
