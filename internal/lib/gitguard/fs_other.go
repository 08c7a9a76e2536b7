//go:build !unix

package gitguard

import (
	"io/fs"
	"os"
)

const openFlags = os.O_RDONLY

func inode(fs.FileInfo) uint64 { return 0 }
