package cli

import (
	"io"
	"os"

	"github.com/charmbracelet/x/term"
)

func stdinIsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}
