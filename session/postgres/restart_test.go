package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harness9/harness9/internal/lib/pgtest"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/session"
)

// privateDB starts a cluster of the test's own (the test restarts it) and
// returns it with a database's DSN.
func privateDB(t *testing.T) (*pgtest.Cluster, string) {
	t.Helper()
	c := pgtest.Private(t)
	return c, c.NewDatabase(t)
}

// contents returns the contents of the stored messages, in order.
func contents(t *testing.T, s *Store, id string) []string {
	t.Helper()
	msgs, err := s.Messages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		out = append(out, m.Content)
	}
	return out
}

// heldSession creates a session in s and takes its lock until the test
// ends.
func heldSession(t *testing.T, s *Store) *session.Session {
	t.Helper()
	sess := &session.Session{Workdir: "/w"}
	if err := s.Create(context.Background(), sess); err != nil {
		t.Fatal(err)
	}
	rel, err := s.LockSession(context.Background(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rel.Release() })
	return sess
}

// restart stops the server and starts it again on its port after down.
func restart(t *testing.T, c *pgtest.Cluster, down time.Duration) {
	t.Helper()
	if err := c.Down(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(down)
	if err := c.Up(); err != nil {
		t.Fatal(err)
	}
}

// A session's writer appends while the server is restarted (down for two
// seconds): every append returns nil, the history holds each message once
// and in order, and the lock is held again afterwards, so another process
// is still told the session is busy.
func TestWritesRideOutARestart(t *testing.T) {
	c, dsn := privateDB(t)
	ctx := context.Background()
	a := openTest(t, dsn, WithHostname("host-a"))
	sess := heldSession(t, a)

	const n = 60
	var want []string
	appended := make(chan error, 1)
	half := make(chan struct{})
	go func() {
		for i := range n {
			if i == n/3 {
				close(half)
			}
			msg := fmt.Sprintf("message %d", i)
			if err := a.AppendMessage(ctx, sess.ID, llm.Message{Role: llm.RoleUser, Content: msg}); err != nil {
				appended <- fmt.Errorf("append %d: %w", i, err)
				return
			}
			if err := a.SaveState(ctx, sess.ID, session.State{Evidence: i}); err != nil {
				appended <- fmt.Errorf("save state %d: %w", i, err)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		appended <- nil
	}()
	for i := range n {
		want = append(want, fmt.Sprintf("message %d", i))
	}
	<-half
	restart(t, c, 2*time.Second)
	if err := <-appended; err != nil {
		t.Fatalf("a write failed across the restart: %v", err)
	}
	if got := contents(t, a, sess.ID); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("stored %d messages %v, want %d in order", len(got), got, n)
	}
	if st, err := a.LoadState(ctx, sess.ID); err != nil || st.Evidence != n-1 {
		t.Fatalf("state %+v %v", st, err)
	}
	b := openTest(t, dsn, WithHostname("host-b"))
	_, err := b.LockSession(ctx, sess.ID)
	wantBusy(t, err, os.Getpid(), "host-a")
}

// A held session whose writer is idle is held again within a few seconds
// of the server's return, before another process asks for it.
func TestIdleLockIsTakenAgainAfterARestart(t *testing.T) {
	c, dsn := privateDB(t)
	ctx := context.Background()
	a := openTest(t, dsn, WithHostname("host-a"))
	a.keepEvery = 100 * time.Millisecond
	sess := heldSession(t, a)
	restart(t, c, 0)
	// Wait until someone holds the lock again: only a can have taken it.
	deadline := time.Now().Add(time.Minute)
	for {
		var held bool
		err := a.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted)`).Scan(&held)
		if err == nil && held {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the lock was not taken again: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	b := openTest(t, dsn, WithHostname("host-b"))
	_, err := b.LockSession(ctx, sess.ID)
	wantBusy(t, err, os.Getpid(), "host-a")
}

// When another process takes a session while its holder's connection is
// down, the holder's writes are refused with a *LockLostError and land
// nowhere: the session has one writer, the new one.
func TestLostLockRefusesWrites(t *testing.T) {
	c, dsn := privateDB(t)
	ctx := context.Background()
	a := openTest(t, dsn, WithHostname("host-a"))
	a.keepEvery = time.Hour // a does not notice the restart by itself
	sess := heldSession(t, a)
	if err := a.AppendMessage(ctx, sess.ID, llm.Message{Role: llm.RoleUser, Content: "from a"}); err != nil {
		t.Fatal(err)
	}
	restart(t, c, 0)
	b := openTest(t, dsn, WithHostname("host-b"))
	relB, err := b.LockSession(ctx, sess.ID)
	if err != nil {
		t.Fatalf("the new writer could not take the session: %v", err)
	}
	defer relB.Release()
	err = a.AppendMessage(ctx, sess.ID, llm.Message{Role: llm.RoleAssistant, Content: "late from a"})
	var lost *LockLostError
	if !errors.As(err, &lost) || !errors.Is(err, ErrLockLost) || !strings.Contains(err.Error(), "host-b") {
		t.Fatalf("a's write after losing the lock: %v, want a *LockLostError naming host-b", err)
	}
	if err := a.SaveState(ctx, sess.ID, session.State{Evidence: 9}); !errors.As(err, &lost) {
		t.Fatalf("a's state save after losing the lock: %v", err)
	}
	if err := b.AppendMessage(ctx, sess.ID, llm.Message{Role: llm.RoleUser, Content: "from b"}); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, b, sess.ID); strings.Join(got, "|") != "from a|from b" {
		t.Fatalf("history %v", got)
	}
	if st, _ := b.LoadState(ctx, sess.ID); st.Evidence == 9 {
		t.Fatal("a's state save landed after it lost the lock")
	}
}

// dropProxy forwards TCP to the server; armed, it ends the connection
// instead of passing on the server's answer to a statement that inserted a
// row: the client cannot know whether its write took effect.
type dropProxy struct {
	ln      net.Listener
	target  string
	armed   atomic.Bool
	dropped atomic.Int32
	wg      sync.WaitGroup
}

func newDropProxy(t *testing.T, target string) *dropProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &dropProxy{ln: ln, target: target}
	go p.accept()
	t.Cleanup(func() { ln.Close(); p.wg.Wait() })
	return p
}

func (p *dropProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.pipe(c)
		}()
	}
}

func (p *dropProxy) pipe(client net.Conn) {
	defer client.Close()
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer server.Close()
	go func() { _, _ = io.Copy(server, client); server.Close() }()
	buf := make([]byte, 64<<10)
	for {
		n, err := server.Read(buf)
		if n > 0 {
			// CommandComplete "INSERT 0 1" comes with ReadyForQuery,
			// after the commit.
			if p.armed.Load() && bytes.Contains(buf[:n], []byte("INSERT 0 1\x00")) {
				p.armed.Store(false)
				p.dropped.Add(1)
				return
			}
			if _, werr := client.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// An append whose connection drops after the server committed it, before
// the answer arrived, is tried again without appending the message twice.
func TestAppendIsNotDoubledWhenTheAnswerIsLost(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	cl := pgtest.Shared(t)
	p := newDropProxy(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(cl.Port)))
	proxied := strings.Replace(dsn, ":"+strconv.Itoa(cl.Port)+"/", ":"+strconv.Itoa(p.ln.Addr().(*net.TCPAddr).Port)+"/", 1)
	ctx := context.Background()
	for _, locked := range []bool{false, true} {
		t.Run(fmt.Sprintf("locked=%v", locked), func(t *testing.T) {
			s := openTest(t, proxied)
			sess := &session.Session{Workdir: "/w"}
			if err := s.Create(ctx, sess); err != nil {
				t.Fatal(err)
			}
			if locked {
				rel, err := s.LockSession(ctx, sess.ID)
				if err != nil {
					t.Fatal(err)
				}
				defer rel.Release()
			}
			for i, text := range []string{"one", "two", "two"} {
				if i == 1 {
					p.armed.Store(true)
				}
				if err := s.AppendMessage(ctx, sess.ID, llm.Message{Role: llm.RoleUser, Content: text}); err != nil {
					t.Fatalf("append %q: %v", text, err)
				}
			}
			if p.dropped.Load() == 0 {
				t.Fatal("the proxy dropped no answer: the test proves nothing")
			}
			p.dropped.Store(0)
			// The second "two" is a message of its own (made later), so
			// it is stored: only the lost answer's retry is not.
			if got := contents(t, s, sess.ID); strings.Join(got, "|") != "one|two|two" {
				t.Fatalf("history %v, want one|two|two", got)
			}
		})
	}
}

// Many held sessions share a few connections: a process running a
// thousand sessions does not need a thousand connections. The same store
// asking for a session it holds is told it is busy (advisory locks are
// reentrant on one connection; the one-writer rule is not).
func TestManyLocksFewConnections(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	s := openTest(t, dsn)
	var rels []session.Releaser
	var ids []string
	for range 40 {
		sess := &session.Session{Workdir: "/w"}
		if err := s.Create(ctx, sess); err != nil {
			t.Fatal(err)
		}
		rel, err := s.LockSession(ctx, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		rels = append(rels, rel)
		ids = append(ids, sess.ID)
		if err := s.AppendMessage(ctx, sess.ID, llm.Message{Role: llm.RoleUser, Content: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	var conns int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()`).Scan(&conns); err != nil {
		t.Fatal(err)
	}
	if max := int(s.pool.Config().MaxConns) + lockConns; conns > max {
		t.Errorf("40 held sessions use %d connections, want at most %d (the pool and %d lock connections)", conns, max, lockConns)
	}
	_, err := s.LockSession(ctx, ids[0])
	wantBusy(t, err, os.Getpid(), s.hostname)
	other := openTest(t, dsn, WithHostname("other"))
	_, err = other.LockSession(ctx, ids[1])
	wantBusy(t, err, os.Getpid(), s.hostname)
	for _, r := range rels {
		if err := r.Release(); err != nil {
			t.Fatal(err)
		}
	}
	rel, err := other.LockSession(ctx, ids[1])
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	rel.Release()
}
