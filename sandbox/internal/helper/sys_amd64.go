//go:build linux

package helper

const sysSeccomp = 317
