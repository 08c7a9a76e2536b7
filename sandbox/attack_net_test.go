package sandbox

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Without the network nothing leaves a command: not TCP (Landlock), and
// not UDP over IPv4 or IPv6 either (a network namespace of its own, or,
// where the kernel refuses user namespaces, seccomp refusing every
// AF_INET and AF_INET6 socket). Canaries on the loopback must receive
// nothing.
func TestNoNetwork(t *testing.T) {
	eachRegime(t, func(t *testing.T, opts ...Option) {
		w := newWorld(t, opts...)
		udp4 := newUDPCanary(t, "udp4", "127.0.0.1:0")
		udp6 := newUDPCanary(t, "udp6", "[::1]:0")
		port4 := udp4.addr()[strings.LastIndex(udp4.addr(), ":")+1:]
		port6 := udp6.addr()[strings.LastIndex(udp6.addr(), ":")+1:]
		attacks := []string{
			"echo hi > /dev/tcp/127.0.0.1/" + w.port(),
			"curl -s -m 2 http://127.0.0.1:" + w.port() + "/",
			"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", " + w.port() + "), 2)'",
			"echo leak > /dev/udp/127.0.0.1/" + port4,
			"echo leak > /dev/udp/::1/" + port6,
			"python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b\"leak\", (\"127.0.0.1\", " + port4 + "))'",
			"python3 -c 'import socket; socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).sendto(b\"leak\", (\"::1\", " + port6 + "))'",
		}
		w.runUnderBoth(t, attacks...)
		silent(t, w.conns, "a confined command connected to a loopback listener")
		if got := udp4.received(); got != "" {
			t.Errorf("a confined command sent a UDP datagram over IPv4: %q", got)
		}
		if got := udp6.received(); got != "" {
			t.Errorf("a confined command sent a UDP datagram over IPv6: %q", got)
		}
	})
}

func TestNetworkAllowedForWorkspaceWrite(t *testing.T) {
	eachRegime(t, func(t *testing.T, opts ...Option) {
		w := newWorld(t, append(opts, WithNetwork(true))...)
		udp := newUDPCanary(t, "udp4", "127.0.0.1:0")
		out, err := w.run(t, WorkspaceWrite, "echo hi > /dev/tcp/127.0.0.1/"+w.port()+" && echo udp > /dev/udp/"+strings.Replace(udp.addr(), ":", "/", 1))
		if err != nil {
			t.Fatalf("connect with the network allowed: %v\n%s", err, out)
		}
		select {
		case <-w.conns:
		case <-time.After(5 * time.Second):
			t.Fatal("no connection arrived with the network allowed")
		}
		if got := udp.received(); got != "udp\n" {
			t.Errorf("UDP with the network allowed: got %q", got)
		}
		w.run(t, ReadOnly, "echo hi > /dev/tcp/127.0.0.1/"+w.port())
		silent(t, w.conns, "ReadOnly connected although only WorkspaceWrite has the network")
	})
}

// WithNetworkAccess opens the network to one WorkspaceWrite command (an
// MCP server the user configured), not to the sandbox's other commands, and
// never to ReadOnly.
func TestNetworkAccessPerCommand(t *testing.T) {
	w := newWorld(t)
	dial := "echo hi > /dev/tcp/127.0.0.1/" + w.port()
	if out, err := w.run(t, WorkspaceWrite, dial, WithNetworkAccess()); err != nil {
		t.Fatalf("connect with network access: %v\n%s", err, out)
	}
	select {
	case <-w.conns:
	case <-time.After(5 * time.Second):
		t.Fatal("no connection arrived from the command given network access")
	}
	w.run(t, WorkspaceWrite, dial)
	w.run(t, ReadOnly, dial, WithNetworkAccess())
	silent(t, w.conns, "a command without network access connected")
}

// The network a server is given (an MCP server: the user never chose it)
// is the network, not the machine's daemons: a socket file outside (the
// user's D-Bus, where systemd-run --user starts anything unconfined; a
// container daemon) stays out of reach, by connection and by datagram.
func TestNetworkAccessOpensNoSocketFiles(t *testing.T) {
	eachRegime(t, func(t *testing.T, opts ...Option) {
		w := newWorld(t, opts...)
		sock := filepath.Join(w.outside, "bus.sock")
		got := unixCanary(t, sock)
		dgram := filepath.Join(w.outside, "log.sock")
		gotDgram := unixgramCanary(t, dgram)
		w.run(t, WorkspaceWrite, "curl -s -m 2 --unix-socket "+sock+" http://x/; "+
			"/usr/bin/python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\""+sock+"\")'; "+
			"/usr/bin/python3 -c 'import socket; a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); a.sendto(b\"leak\", \""+dgram+"\")'",
			WithNetworkAccess(), LongLived())
		silent(t, got, "a server given network access connected to a socket file outside the sandbox")
		if msg := gotDgram.received(); msg != "" {
			t.Errorf("a server given network access sent a datagram to a socket file outside: %q", msg)
		}
	})
}

// A socket file is a door out of any sandbox: the user's D-Bus or systemd
// (`systemd-run --user`) or a container daemon would run code unconfined.
// Landlock before ABI 9 does not check connect(2) on socket files, so
// creating an AF_UNIX socket is refused.
func TestNoUnixSocketConnections(t *testing.T) {
	eachRegime(t, func(t *testing.T, opts ...Option) {
		w := newWorld(t, opts...)
		sock := filepath.Join(w.outside, "daemon.sock")
		got := unixCanary(t, sock)
		attacks := []string{
			"curl -s -m 2 --unix-socket " + sock + " http://x/",
			"/usr/bin/python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"" + sock + "\")'",
			// A socketpair's end is connected for good.
			"/usr/bin/python3 -c 'import socket; a, b = socket.socketpair(); a.connect(\"" + sock + "\")'",
		}
		w.runUnderBoth(t, attacks...)
		silent(t, got, "a confined command connected to a socket file outside the sandbox")
		// Pipes and socketpairs between the command's own processes still work.
		out, err := w.run(t, ReadOnly, "echo piped | cat; /usr/bin/python3 -c 'import socket; a,b=socket.socketpair(); a.send(b\"pair\"); print(b.recv(4).decode())' 2>/dev/null || echo pair")
		if err != nil || !strings.Contains(out, "piped") || !strings.Contains(out, "pair") {
			t.Errorf("local IPC broke: %v\n%s", err, out)
		}
	})
}

// A datagram needs no connection: a socketpair of datagram sockets (which
// socket(2)'s filter does not see) can send to any datagram socket file by
// its name, such as the system log's or another program's listening
// outside, and pass it file descriptors. Only stream and seqpacket
// socketpairs, whose ends cannot be pointed elsewhere, are allowed.
func TestNoDatagramsToSocketFiles(t *testing.T) {
	eachRegime(t, func(t *testing.T, opts ...Option) {
		w := newWorld(t, opts...)
		sock := filepath.Join(w.outside, "log.sock")
		got := unixgramCanary(t, sock)
		send := func(kind string) string {
			return "/usr/bin/python3 -c 'import socket; a, b = socket.socketpair(socket.AF_UNIX, socket." + kind +
				"); a.sendto(b\"leak\", \"" + sock + "\")'"
		}
		w.runUnderBoth(t, send("SOCK_DGRAM"), send("SOCK_RAW"), "logger -u "+sock+" leak")
		if msg := got.received(); msg != "" {
			t.Errorf("a confined command sent a datagram to a socket file outside the sandbox: %q", msg)
		}
	})
}

// unixgramCanary listens on a datagram socket file.
func unixgramCanary(t *testing.T, path string) *udpCanary {
	t.Helper()
	c, err := net.ListenPacket("unixgram", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &udpCanary{conn: c}
}

// unixCanary listens on a socket file and signals every connection.
func unixCanary(t *testing.T, path string) <-chan struct{} {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan struct{}, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			got <- struct{}{}
			c.Close()
		}
	}()
	return got
}
