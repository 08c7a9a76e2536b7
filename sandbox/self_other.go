//go:build !linux

package sandbox

// ProtectSelf does nothing on this system: there is no /proc to read
// another process's environment or memory through.
func ProtectSelf() error { return nil }
