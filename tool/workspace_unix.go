//go:build unix

package tool

import "syscall"

// openNoBlock makes opening a named pipe return at once instead of waiting
// for a writer; regular files and directories ignore it.
const openNoBlock = syscall.O_NONBLOCK
