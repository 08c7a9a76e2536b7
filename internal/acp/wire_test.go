package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	cases := []struct {
		line string
		code int    // 0: passed on
		id   string // the id answered
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, 0, ""},
		{`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"x"}}`, 0, ""},
		{`{"jsonrpc":"2.0","id":"a","result":{}}`, 0, ""},
		{`{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no"}}`, 0, ""},
		{`{"jsonrpc":"2.0","id":null,"method":"x"}`, 0, ""},
		{`not json`, -32700, "null"},
		{`{"jsonrpc":"2.0","id":1,"method":"x"`, -32700, "null"},
		{`[{"jsonrpc":"2.0","id":1,"method":"x"}]`, -32600, "null"},
		{`42`, -32600, "null"},
		{`{"id":3,"method":"x"}`, -32600, "3"},
		{`{"jsonrpc":"1.0","id":3,"method":"x"}`, -32600, "3"},
		{`{"jsonrpc":"2.0","id":true,"method":"x"}`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":[1],"method":"x"}`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":4,"method":""}`, -32600, "4"},
		{`{"jsonrpc":"2.0","id":4,"method":{"a":1}}`, -32600, "4"},
		{`{"jsonrpc":"2.0","id":5}`, -32600, "5"},
		{`{"jsonrpc":"2.0"}`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":6,"result":{},"error":{"code":1,"message":"x"}}`, -32600, "6"},
		{`{"jsonrpc":"2.0","id":7,"error":"bad"}`, -32600, "7"},
	}
	for _, c := range cases {
		id, err := check([]byte(c.line))
		switch {
		case c.code == 0 && err != nil:
			t.Errorf("%s: refused with %v", c.line, err)
		case c.code != 0 && (err == nil || err.Code != c.code || string(id) != c.id):
			t.Errorf("%s: got id %s, %v; want %d for id %s", c.line, id, err, c.code, c.id)
		}
	}
}

// Valid lines reach the SDK in order; the others are answered on the
// output, one whole line each; a line over the limit is dropped and
// answered; the end of the input closes the SDK's side.
func TestFilterInput(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":9,"method":"x","params":"` + strings.Repeat("y", maxLine) + `"}`
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"a"}`,
		``,
		`oops`,
		long,
		`{"jsonrpc":"2.0","id":2,"method":"b"}` + "\r",
		`{"jsonrpc":"2.0","id":3,"method":"c"}`, // no newline at the end
	}, "\n")
	pr, pw := io.Pipe()
	var out bytes.Buffer
	w := &lineWriter{w: &out}
	go filterInput(strings.NewReader(in), pw, w, slog.New(slog.DiscardHandler))
	passed, err := io.ReadAll(pr)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"method":"a"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"b"}` + "\n" + `{"jsonrpc":"2.0","id":3,"method":"c"}` + "\n"
	if string(passed) != want {
		t.Fatalf("passed on %q", passed)
	}
	sc := bufio.NewScanner(&out)
	var codes []float64
	for sc.Scan() {
		var m struct {
			ID    any `json:"id"`
			Error struct{ Code float64 }
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.ID != nil {
			t.Fatalf("answer %q: %v", sc.Text(), err)
		}
		codes = append(codes, m.Error.Code)
	}
	if len(codes) != 2 || codes[0] != -32700 || codes[1] != -32600 {
		t.Fatalf("answers %v", codes)
	}
}

func TestLineWriterRunsHooksAfterTheLine(t *testing.T) {
	var out bytes.Buffer
	w := &lineWriter{w: &out}
	done := make(chan string, 1)
	w.afterLine(`"sessionId":"s1"`, func() { done <- out.String() })
	_, _ = w.Write([]byte("{\"other\":1}\n"))
	_, _ = w.Write([]byte("{\"result\":{\"sessionId\":\"s1\"}}\n"))
	if got := <-done; !strings.HasSuffix(got, "\"s1\"}}\n") {
		t.Fatalf("the hook ran before its line was written: %q", got)
	}
	if len(w.after) != 0 {
		t.Fatal("the hook was kept after it ran")
	}
}
