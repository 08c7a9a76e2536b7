package trust

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestDecisionsFollowTheFiles(t *testing.T) {
	home, wd := t.TempDir(), t.TempDir()
	s := NewStore(home)
	h0 := HashFiles(wd)
	if st, err := s.State(wd, h0); err != nil || st.Decision != Unknown || st.Changed || st.Trusted() {
		t.Fatalf("a new project: %+v %v", st, err)
	}
	if err := s.Decide(wd, Declined, h0, time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.State(wd, h0); st.Decision != Declined || st.Trusted() {
		t.Errorf("declined: %+v", st)
	}
	if err := os.WriteFile(filepath.Join(wd, ".mcp.json"), []byte(`{"mcpServers":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	h1 := HashFiles(wd)
	if h1 == h0 {
		t.Fatal("creating .mcp.json did not change the hash")
	}
	if st, _ := s.State(wd, h1); st.Decision != Unknown || !st.Changed {
		t.Errorf("after a change: %+v", st)
	}
	if err := s.Decide(wd, Trusted, h1, time.Unix(2, 0)); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.State(wd, h1); !st.Trusted() {
		t.Errorf("trusted: %+v", st)
	}
	os.MkdirAll(filepath.Join(wd, ".harness9"), 0o755)
	os.WriteFile(filepath.Join(wd, ".harness9", "config.toml"), []byte("[hooks]\n"), 0o644)
	if st, _ := s.State(wd, HashFiles(wd)); st.Trusted() {
		t.Error("a changed project config kept the trust")
	}
	// Moving bytes between the two files changes the hash.
	a, b := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(a, ".mcp.json"), []byte("xy"), 0o644)
	os.MkdirAll(filepath.Join(b, ".harness9"), 0o755)
	os.WriteFile(filepath.Join(b, ".mcp.json"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(b, ".harness9", "config.toml"), []byte("y"), 0o644)
	if HashFiles(a) == HashFiles(b) {
		t.Error("different files hash alike")
	}
	list, err := s.List()
	if err != nil || len(list) != 1 || list[0].Workdir != wd || list[0].Decision != Trusted {
		t.Errorf("list: %+v %v", list, err)
	}
	if had, err := s.Forget(wd); !had || err != nil {
		t.Errorf("forget: %v %v", had, err)
	}
	if st, _ := s.State(wd, h1); st.Decision != Unknown || st.Changed {
		t.Errorf("after forget: %+v", st)
	}
}

func TestCorruptFileIsAnErrorNotTrust(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, File), []byte("{"), 0o600)
	st, err := NewStore(home).State("/w", "h")
	if err == nil || st.Trusted() {
		t.Errorf("corrupt file: %+v %v", st, err)
	}
}
