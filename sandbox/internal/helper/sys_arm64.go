//go:build linux

package helper

const (
	sysSeccomp = 277
	sysPpoll   = 73
)
