//go:build linux

package sandbox

import "golang.org/x/sys/unix"

const auditArch = unix.AUDIT_ARCH_AARCH64

// arm64 has only the *at forms, which metadataSyscalls lists.
var archMetadataSyscalls = []uintptr{}
