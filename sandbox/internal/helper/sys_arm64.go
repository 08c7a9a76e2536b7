//go:build linux

package helper

const sysSeccomp = 277
