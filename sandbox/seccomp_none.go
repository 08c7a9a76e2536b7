//go:build linux && !amd64 && !arm64

package sandbox

// installMetadataFilter is a no-op on architectures without a syscall
// table here: metadata changes are then not refused under ReadOnly.
func installMetadataFilter() error { return nil }
