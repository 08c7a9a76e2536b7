//go:build !unix

package tool

// openNoBlock: no named pipes to guard against here.
const openNoBlock = 0
