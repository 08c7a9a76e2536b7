//go:build unix

package mcptool

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Another user of the machine can neither read a stored login nor list
// the logins: the file is 0600, its directory 0700, whatever the
// directories above allow.
func TestStoredLoginsUnreadableByOtherUsers(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a command as another user")
	}
	base := t.TempDir()
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "mcp-auth")
	store := NewFileTokenStore(dir)
	if err := store.Save(&Credentials{URL: "https://mcp.example.com/mcp", ClientID: "c", TokenURL: "https://as/token", AccessToken: "secret-access-token"}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, fileName("https://mcp.example.com/mcp"))
	for _, argv := range [][]string{{"cat", file}, {"ls", dir}} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		if err == nil || strings.Contains(string(out), "secret-access-token") || !strings.Contains(string(out), "Permission denied") {
			t.Errorf("%v as nobody: err %v, output %q", argv, err, out)
		}
	}
}
