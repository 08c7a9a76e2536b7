//go:build !unix

package cli

import "io"

// isStdout is false where descriptors cannot be moved: protocol messages
// go to the writer given.
func isStdout(io.Writer) bool { return false }

func reserveStdout() (io.Writer, error) { return nil, nil }
