//go:build !linux

package builtin

import "os"

// openChildDir: the portable path (through the workspace) is used instead.
func openChildDir(*os.File, string) (*os.File, bool) { return nil, false }

// readChild: the portable path (through the workspace) is used instead.
func readChild(*os.File, string, int64) ([]byte, bool) { return nil, false }
