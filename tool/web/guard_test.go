package web

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	refused := []string{
		"127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1", "10.0.0.1", "172.16.0.1", "172.31.255.255",
		"192.168.1.1", "fc00::1", "fd12:3456::1", "169.254.169.254", "fe80::1", "0.0.0.0", "0.1.2.3",
		"::", "224.0.0.1", "ff02::1", "100.64.0.1", "100.127.255.254", "255.255.255.255", "240.0.0.1",
		"::ffff:169.254.169.254", "::ffff:10.0.0.1", "64:ff9b::7f00:1", "2002:7f00:1::", "2002:a9fe:a9fe::1",
		"198.18.0.1", "::7f00:1", "::a9fe:a9fe",
	}
	for _, s := range refused {
		if classify(netip.MustParseAddr(s)) == "" {
			t.Errorf("%s is allowed", s)
		}
	}
	public := []string{"8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8",
		"172.32.0.1", "100.128.0.1", "64:ff9b::808:808"}
	for _, s := range public {
		if k := classify(netip.MustParseAddr(s)); k != "" {
			t.Errorf("%s refused as %s", s, k)
		}
	}
}

// TestRedirectToPrivateRefused lets a loopback server play a public host
// (an exact address allowed) and redirects it to other private targets:
// every hop is refused, and the target server sees nothing.
func TestRedirectToPrivateRefused(t *testing.T) {
	target := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "INTERNAL SECRET")
	})
	port := target.port()
	cases := []string{
		"http://127.0.0.1:" + port + "/",
		"http://[::1]:" + port + "/",
		"http://[::ffff:127.0.0.1]:" + port + "/",
		"http://169.254.169.254/latest/meta-data/",
		"http://[fe80::1]:" + port + "/",
		"http://10.1.2.3:" + port + "/",
		"http://0.0.0.0:" + port + "/",
		"http://localhost:" + port + "/",
		"http://localhost.:" + port + "/",
		"http://rebind.test:" + port + "/",
		"http://0x7f000001:" + port + "/",
		"http://2130706433:" + port + "/",
	}
	var loc string
	public := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, loc, http.StatusFound)
	})
	res := fakeResolver{
		"localhost":   addrs("127.0.0.1", "::1"),
		"rebind.test": addrs("127.0.0.1"),
		// What getaddrinfo makes of numeric host names.
		"0x7f000001": addrs("127.0.0.1"),
		"2130706433": addrs("127.0.0.1"),
	}
	for _, c := range cases {
		loc = c
		f := NewFetch(WithResolver(res), WithAllowedAddrs(public.addrPort(t)))
		out := run(t, f, FetchInput{URL: public.URL + "/start"})
		if !out.IsError {
			t.Errorf("redirect to %s followed: %s", c, out.Output)
			continue
		}
		if strings.Contains(out.Output, "INTERNAL SECRET") {
			t.Errorf("redirect to %s leaked the target's body", c)
		}
		if !strings.Contains(out.Output, "refused") {
			t.Errorf("redirect to %s: %s", c, out.Output)
		}
	}
	if n := target.hits.Load(); n != 0 {
		t.Fatalf("the private target saw %d requests", n)
	}
	if n := public.hits.Load(); n != int64(len(cases)) {
		t.Fatalf("the public host saw %d requests, want %d", n, len(cases))
	}
}

func TestDirectPrivateRefusedWithoutSwitch(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello") })
	res := fakeResolver{"evil.test": addrs("127.0.0.1"), "mixed.test": addrs("10.0.0.1", "127.0.0.1")}
	f := NewFetch(WithResolver(res))
	for _, u := range []string{s.URL, "http://evil.test:" + s.port(), "http://mixed.test:" + s.port(),
		"http://[::ffff:7f00:1]:" + s.port()} {
		out := run(t, f, FetchInput{URL: u})
		if !out.IsError || !strings.Contains(out.Output, "allow_private") || !strings.Contains(out.Output, "web_fetch(domain:") {
			t.Errorf("%s: not refused with the fix named: %+v", u, out)
		}
	}
	if n := s.hits.Load(); n != 0 {
		t.Fatalf("the server saw %d requests", n)
	}
}

func TestPrivateHostsLiftTheRefusalForThatHostOnly(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hop" {
			http.Redirect(w, r, "http://other.internal:"+r.URL.Query().Get("p")+"/", http.StatusFound)
			return
		}
		fmt.Fprint(w, "docs page")
	})
	res := fakeResolver{"docs.internal": addrs("127.0.0.1"), "other.internal": addrs("127.0.0.1")}
	f := NewFetch(WithResolver(res), WithPrivateHosts(func(h string) bool { return h == "docs.internal" }))
	out := run(t, f, FetchInput{URL: "http://DOCS.internal.:" + s.port() + "/"})
	if out.IsError || !strings.Contains(out.Output, "docs page") {
		t.Fatalf("allowed host refused: %+v", out)
	}
	out = run(t, f, FetchInput{URL: "http://docs.internal:" + s.port() + "/hop?p=" + s.port()})
	if !out.IsError || !strings.Contains(out.Output, "other.internal") {
		t.Fatalf("redirect to another private host followed: %+v", out)
	}
	if n := s.hits.Load(); n != 2 {
		t.Fatalf("server saw %d requests, want 2", n)
	}
}

func TestEnvironmentProxyIsNotUsed(t *testing.T) {
	proxy := newServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "from the proxy") })
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "direct") })
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	t.Setenv("NO_PROXY", "")
	out := run(t, NewFetch(WithAllowedAddrs(s.addrPort(t))), FetchInput{URL: s.URL})
	if out.IsError || !strings.Contains(out.Output, "direct") || proxy.hits.Load() != 0 {
		t.Fatalf("went through the proxy (%d hits): %+v", proxy.hits.Load(), out)
	}
}

func TestNoCookiesNoCredentialsAcrossRedirects(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/login" {
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "abc"})
			http.Redirect(w, r, "/next", http.StatusFound)
			return
		}
		if r.URL.Path == "/creds" {
			// A redirect carrying credentials in the URL.
			u := "http://user:pw@" + r.Host + "/next"
			http.Redirect(w, r, u, http.StatusFound)
			return
		}
		fmt.Fprint(w, "ok")
	})
	f := NewFetch(WithAllowPrivate(true))
	if out := run(t, f, FetchInput{URL: s.URL + "/login"}); out.IsError {
		t.Fatal(out.Output)
	}
	if out := run(t, f, FetchInput{URL: s.URL + "/creds"}); !out.IsError {
		t.Fatalf("redirect with credentials followed: %s", out.Output)
	}
	for _, r := range s.reqs {
		if c := r.Header.Get("Cookie"); c != "" {
			t.Errorf("%s carried Cookie %q", r.URL, c)
		}
		if a := r.Header.Get("Authorization"); a != "" {
			t.Errorf("%s carried Authorization %q", r.URL, a)
		}
	}
	if n := s.hits.Load(); n != 3 {
		t.Errorf("server saw %d requests, want 3", n)
	}
}

func TestRedirectLimit(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/again", http.StatusFound)
	})
	out := run(t, NewFetch(WithAllowPrivate(true)), FetchInput{URL: s.URL})
	if !out.IsError || !strings.Contains(out.Output, "10 redirects") {
		t.Fatalf("redirect loop: %+v", out)
	}
	if n := s.hits.Load(); n != maxRedirects {
		t.Fatalf("server saw %d requests, want %d", n, maxRedirects)
	}
}

func TestRedirectToOtherSchemeRefused(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	out := run(t, NewFetch(WithAllowPrivate(true)), FetchInput{URL: s.URL})
	if !out.IsError || strings.Contains(out.Output, "root:") {
		t.Fatalf("got %+v", out)
	}
}

func TestTLSServerThroughGuard(t *testing.T) {
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secure") }))
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.StartTLS()
	defer s.Close()
	// The test server's certificate is not trusted: the failure must be a
	// TLS one, which proves the connection went through the guard's dialer
	// to the allowed address.
	ap := netip.MustParseAddrPort(strings.TrimPrefix(s.URL, "https://"))
	out := run(t, NewFetch(WithAllowedAddrs(ap)), FetchInput{URL: s.URL})
	if !out.IsError || !strings.Contains(out.Output, "certificate") {
		t.Fatalf("got %+v", out)
	}
}

// FuzzClassifyIPv6Forms checks a property: an IPv4 address and the IPv6
// forms that carry it (IPv4-mapped, NAT64) are judged alike, so no
// spelling of a refused address gets through.
func FuzzClassifyIPv6Forms(f *testing.F) {
	f.Add(byte(127), byte(0), byte(0), byte(1))
	f.Add(byte(169), byte(254), byte(169), byte(254))
	f.Add(byte(8), byte(8), byte(8), byte(8))
	f.Add(byte(100), byte(64), byte(0), byte(1))
	f.Fuzz(func(t *testing.T, a, b, c, d byte) {
		v4 := netip.AddrFrom4([4]byte{a, b, c, d})
		mapped := netip.AddrFrom16([16]byte{10: 0xff, 11: 0xff, 12: a, 13: b, 14: c, 15: d})
		nat := netip.AddrFrom16([16]byte{0: 0, 1: 0x64, 2: 0xff, 3: 0x9b, 12: a, 13: b, 14: c, 15: d})
		refused := classify(v4) != ""
		if (classify(mapped) != "") != refused || (classify(nat) != "") != refused {
			t.Fatalf("%s refused=%v, %s %q, %s %q", v4, refused, mapped, classify(mapped), nat, classify(nat))
		}
	})
}
