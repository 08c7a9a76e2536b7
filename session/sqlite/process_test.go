package sqlite

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/session"
)

// The helper process appends messages to a session in a database shared
// with the test that started it. It reads one line from stdin before it
// starts (so that several helpers begin together) and prints "ok N" after
// each committed message N. Its parameters come from the environment.
const (
	envHelper  = "HARNESS9_SQLITE_HELPER"
	envDB      = "HARNESS9_SQLITE_HELPER_DB"
	envSession = "HARNESS9_SQLITE_HELPER_SESSION"
	envTag     = "HARNESS9_SQLITE_HELPER_TAG"
	envCount   = "HARNESS9_SQLITE_HELPER_COUNT" // 0: until killed
	envPause   = "HARNESS9_SQLITE_HELPER_PAUSE" // between appends, so writers interleave
)

func TestHelperProcess(t *testing.T) {
	if os.Getenv(envHelper) != "1" {
		t.Skip("helper process for the multi-process tests")
	}
	pause, _ := time.ParseDuration(os.Getenv(envPause))
	err := helperAppend(os.Getenv(envDB), os.Getenv(envSession), os.Getenv(envTag), os.Getenv(envCount), pause)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func helperAppend(path, id, tag, count string, pause time.Duration) error {
	n, err := strconv.Atoi(count)
	if err != nil {
		return err
	}
	s, err := Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = s.Close() }()
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return fmt.Errorf("waiting for start: %w", err)
	}
	for i := 0; n == 0 || i < n; i++ {
		m := llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("%s-%d", tag, i)}
		if err := s.AppendMessage(context.Background(), id, m); err != nil {
			return err
		}
		if _, err := fmt.Fprintf(os.Stdout, "ok %d\n", i); err != nil {
			return err
		}
		time.Sleep(pause)
	}
	return nil
}

type helper struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Scanner
	stderr *bytes.Buffer
}

func startHelper(t *testing.T, path, id, tag string, count int, pause time.Duration) *helper {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(),
		envHelper+"=1", envDB+"="+path, envSession+"="+id, envTag+"="+tag, envCount+"="+strconv.Itoa(count), envPause+"="+pause.String())
	h := &helper{cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = h.stderr
	var err error
	if h.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	h.stdout = bufio.NewScanner(out)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start helper process: %v", err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return h
}

func (h *helper) start(t *testing.T) {
	t.Helper()
	if _, err := io.WriteString(h.stdin, "go\n"); err != nil {
		t.Fatalf("start helper: %v", err)
	}
}

// reported reads "ok N" lines until stop returns true or stdout ends and
// returns the numbers read.
func (h *helper) reported(t *testing.T, stop func(n int) bool) []int {
	t.Helper()
	var got []int
	for h.stdout.Scan() {
		line := h.stdout.Text()
		num, ok := strings.CutPrefix(line, "ok ")
		if !ok {
			continue // test framework output
		}
		n, err := strconv.Atoi(num)
		if err != nil {
			t.Fatalf("helper printed %q", line)
		}
		got = append(got, n)
		if stop != nil && stop(len(got)) {
			break
		}
	}
	return got
}

func newSharedSession(t *testing.T) (path, id string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "shared.db")
	s := openTest(t, path)
	defer func() { _ = s.Close() }()
	sess := session.Session{Workdir: "/w"}
	if err := s.Create(context.Background(), &sess); err != nil {
		t.Fatal(err)
	}
	return path, sess.ID
}

// checkHistory verifies the database's integrity and that the session's
// seqs run 1..len without gaps, and returns each tag's message numbers in
// stored order.
func checkHistory(t *testing.T, s *Store, id string) map[string][]int {
	t.Helper()
	var integrity string
	if err := s.db.QueryRow("PRAGMA integrity_check").Scan(&integrity); err != nil {
		t.Fatal(err)
	}
	if integrity != "ok" {
		t.Errorf("integrity_check: %s", integrity)
	}
	rows, err := s.db.Query(`SELECT seq FROM messages WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rows.Close() }()
	want := 1
	for rows.Next() {
		var seq int
		if err := rows.Scan(&seq); err != nil {
			t.Fatal(err)
		}
		if seq != want {
			t.Fatalf("seq %d where %d was expected: not contiguous", seq, want)
		}
		want++
	}
	msgs, err := s.Messages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != want-1 {
		t.Fatalf("Messages returned %d, table holds %d", len(msgs), want-1)
	}
	byTag := map[string][]int{}
	for _, m := range msgs {
		tag, num, ok := strings.Cut(m.Content, "-")
		n, err := strconv.Atoi(num)
		if !ok || err != nil {
			t.Fatalf("unexpected message %q", m.Content)
		}
		byTag[tag] = append(byTag[tag], n)
	}
	return byTag
}

func TestTwoProcessesAppend(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two processes")
	}
	const n = 200
	path, id := newSharedSession(t)
	// A short pause between appends lets the writers take turns instead of
	// one of them holding on to the lock while the other's busy handler
	// backs off; they still collide often enough to exercise the wait.
	a := startHelper(t, path, id, "a", n, 200*time.Microsecond)
	b := startHelper(t, path, id, "b", n, 200*time.Microsecond)
	a.start(t)
	b.start(t)
	for _, h := range []*helper{a, b} {
		if got := h.reported(t, nil); len(got) != n {
			t.Errorf("helper reported %d messages, want %d", len(got), n)
		}
		if err := h.cmd.Wait(); err != nil {
			t.Errorf("helper failed: %v\n%s", err, h.stderr)
		}
		if strings.Contains(h.stderr.String(), "locked") {
			t.Errorf("helper saw a lock error:\n%s", h.stderr)
		}
	}

	s := openTest(t, path)
	defer func() { _ = s.Close() }()
	byTag := checkHistory(t, s, id)
	for _, tag := range []string{"a", "b"} {
		got := byTag[tag]
		if len(got) != n {
			t.Errorf("%s: %d messages stored, want %d", tag, len(got), n)
			continue
		}
		for i, v := range got {
			if v != i {
				t.Errorf("%s: message %d stored where %d was expected", tag, v, i)
				break
			}
		}
	}
	if len(byTag) != 2 {
		t.Errorf("unexpected writers: %v", byTag)
	}
	msgs, _ := s.Messages(context.Background(), id)
	switches := 0
	for i := 1; i < len(msgs); i++ {
		if msgs[i].Content[0] != msgs[i-1].Content[0] {
			switches++
		}
	}
	t.Logf("the writers took turns %d times", switches)
}

func TestKilledWriterLosesNothingCommitted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	path, id := newSharedSession(t)
	h := startHelper(t, path, id, "k", 0, 0)
	h.start(t)
	reported := h.reported(t, func(n int) bool { return n >= 100 })
	if err := h.cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	// Lines already in the pipe were written before the kill.
	reported = append(reported, h.reported(t, nil)...)
	_ = h.cmd.Wait()
	if len(reported) < 100 {
		t.Fatalf("helper reported only %d messages before dying:\n%s", len(reported), h.stderr)
	}

	s := openTest(t, path)
	defer func() { _ = s.Close() }()
	stored := checkHistory(t, s, id)["k"]
	if len(stored) < len(reported) {
		t.Fatalf("%d messages reported written, %d stored", len(reported), len(stored))
	}
	for i, v := range stored {
		if v != i {
			t.Fatalf("stored message %d where %d was expected", v, i)
		}
	}
	// The session carries on where it stopped.
	if err := s.AppendMessage(context.Background(), id, llm.Message{Role: llm.RoleUser, Content: "k-" + strconv.Itoa(len(stored))}); err != nil {
		t.Fatalf("append after the crash: %v", err)
	}
	if got := checkHistory(t, s, id)["k"]; len(got) != len(stored)+1 {
		t.Errorf("after resuming: %d messages, want %d", len(got), len(stored)+1)
	}
}

// Two Store values on one file share no in-process lock, so their
// goroutines meet only in SQLite's own locking, as two processes would.
func TestGoroutinesOnTwoStores(t *testing.T) {
	path, id := newSharedSession(t)
	stores := []*Store{openTest(t, path), openTest(t, path)}
	const workers, each = 4, 50
	errs := make(chan error, 2*workers*each)
	var wg sync.WaitGroup
	for si, s := range stores {
		for w := range workers {
			tag := string(rune('a' + si*workers + w))
			wg.Go(func() {
				for i := range each {
					m := llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("%s-%d", tag, i)}
					if err := s.AppendMessage(context.Background(), id, m); err != nil {
						errs <- err
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("AppendMessage: %v", err)
	}
	byTag := checkHistory(t, stores[0], id)
	if len(byTag) != 2*workers {
		t.Errorf("%d writers stored, want %d", len(byTag), 2*workers)
	}
	for tag, nums := range byTag {
		for i, v := range nums {
			if v != i {
				t.Errorf("writer %s: message %d stored where %d was expected", tag, v, i)
				break
			}
		}
		if len(nums) != each {
			t.Errorf("writer %s: %d messages, want %d", tag, len(nums), each)
		}
	}
	for _, s := range stores {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}
}
