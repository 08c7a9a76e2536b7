//go:build linux && !amd64 && !arm64

package helper

// No seccomp filter is built on this architecture (the harness passes
// none), so the number is never used.
const sysSeccomp = ^uintptr(0)
