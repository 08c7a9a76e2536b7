package postgres

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://bob:s3cr%40t@db.example:5432/h9?sslmode=require", "postgres://bob:xxxxx@db.example:5432/h9?sslmode=require"},
		{"postgresql://bob@db/h9", "postgresql://bob@db/h9"},
		{"postgres://db/h9?password=hunter2&user=bob", "postgres://db/h9?password=xxxxx&user=bob"},
		{"host=db user=bob password='a b\\'c' dbname=h9", "host=db user=bob password=xxxxx dbname=h9"},
		{"host=db password=hunter2", "host=db password=xxxxx"},
		{"postgres://bob:hun%zzter2@db/h9", "postgres://xxxxx@db/h9"},
	} {
		if got := Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestOpenErrorHidesPassword attacks the error path: a server that is not
// there, a URL that does not parse, and a key=value string, each carrying
// a password; no error may print it, in any spelling.
func TestOpenErrorHidesPassword(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	const pw = "Tr0ub4dor&3:@/"
	for _, dsn := range []string{
		"postgres://bob:" + "Tr0ub4dor%263%3A%40%2F" + "@" + addr + "/h9?connect_timeout=2",
		"postgres://" + addr + "/h9?connect_timeout=2&password=Tr0ub4dor%263%3A%40%2F",
		"postgres://bob:Tr0ub4dor&3:@/@" + addr + "/h9",
		"host=127.0.0.1 port=" + strings.Split(addr, ":")[1] + " password=" + pw + " connect_timeout=2",
		"postgres://bob:" + "Tr0ub4dor%263%3A%40%2F" + "@" + addr + "/h9?connect_timeout=nonsense",
	} {
		_, err := Open(context.Background(), dsn)
		if err == nil {
			t.Fatalf("Open(%s) succeeded", Redact(dsn))
		}
		for _, leak := range []string{pw, "Tr0ub4dor", "Tr0ub4dor%263"} {
			if strings.Contains(err.Error(), leak) {
				t.Errorf("Open error shows the password: %v", err)
			}
		}
		_, err = Check(context.Background(), dsn)
		if err == nil || strings.Contains(err.Error(), "Tr0ub4dor") {
			t.Errorf("Check error = %v; want an error without the password", err)
		}
	}
	// The wrapped error still matches what it wraps.
	base := errors.New("dial: " + pw)
	if err := scrub(base, "host=x password="+pw); !errors.Is(err, base) || strings.Contains(err.Error(), pw) {
		t.Errorf("scrub = %v", err)
	}
}
