package cli

import (
	"strings"
	"testing"

	"github.com/harness9/harness9/eval"
)

func TestEvalProgressBar(t *testing.T) {
	var b strings.Builder
	p := newProgress(&b, 4, 1, true) // one run done before (resumed)
	p.step(eval.Record{Task: "hello", Mode: eval.Plan, Model: "m", Pass: true})
	p.step(eval.Record{Task: "stall", Mode: eval.Direct, Model: "m"})
	p.finish()
	frames := strings.Split(b.String(), "\r\x1b[K")
	want := []string{
		"",
		"[=======                       ] 1/4 runs, 0/0 passed  ",
		"[===============               ] 2/4 runs, 1/1 passed  pass hello plan m",
		"[======================        ] 3/4 runs, 1/2 passed  fail stall direct m",
		"",
	}
	if strings.Join(frames, "|") != strings.Join(want, "|") {
		t.Fatalf("frames:\n%q\nwant\n%q", frames, want)
	}
	var off strings.Builder
	q := newProgress(&off, 4, 0, false)
	q.step(eval.Record{Task: "hello"})
	q.finish()
	if off.Len() != 0 {
		t.Fatalf("a bar off a terminal drew %q", off.String())
	}
}
