package mcptool

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harness9/harness9/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// activeCall is a tool call running on a server: the user who may be
// asked on its behalf (elicitation) and where its progress goes.
type activeCall struct {
	ctx      context.Context
	ask      tool.Asker    // nil: nobody can be asked
	progress tool.Progress // nil: nobody watches
}

// begin records a call running on s until the returned func is called.
func (s *server) begin(ctx context.Context) (*activeCall, func()) {
	c := &activeCall{ctx: ctx, ask: tool.AskerFrom(ctx), progress: tool.ProgressFrom(ctx)}
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
	return c, func() {
		s.mu.Lock()
		for i, x := range s.calls {
			if x == c {
				s.calls = append(s.calls[:i], s.calls[i+1:]...)
				break
			}
		}
		s.mu.Unlock()
	}
}

// current is the newest call running on s, or nil. A server's requests
// for input carry no reference to the call they are for; while several
// calls of one server run at once they come from the same user anyway.
func (s *server) current() *activeCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.calls) == 0 {
		return nil
	}
	return s.calls[len(s.calls)-1]
}

// progressGrace is how long a finished call's progress token is still
// routed.
const progressGrace = 2 * time.Second

// progressRoutes maps the progress tokens of running calls to their
// Progress.
type progressRoutes struct {
	next   atomic.Uint64
	routes sync.Map // string token → tool.Progress
}

// add routes the notifications of a new token to p until remove.
func (r *progressRoutes) add(p tool.Progress) string {
	tok := "h9-" + strconv.FormatUint(r.next.Add(1), 10)
	r.routes.Store(tok, p)
	return tok
}

func (r *progressRoutes) remove(tok string) { r.routes.Delete(tok) }

// deliver shows a progress notification in its call's output. Unknown
// tokens (a call already finished, or a token never handed out) are
// dropped.
func (r *progressRoutes) deliver(p *mcp.ProgressNotificationParams) {
	if p == nil {
		return
	}
	tok, ok := p.ProgressToken.(string)
	if !ok {
		return
	}
	v, ok := r.routes.Load(tok)
	if !ok {
		return
	}
	v.(tool.Progress)(progressLine(p))
}

// progressLine renders one notification: "[3/10] message".
func progressLine(p *mcp.ProgressNotificationParams) string {
	var b strings.Builder
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	switch {
	case p.Total > 0:
		fmt.Fprintf(&b, "[%s/%s]", num(p.Progress), num(p.Total))
	default:
		fmt.Fprintf(&b, "[%s]", num(p.Progress))
	}
	if msg := oneLine(p.Message, maxProgressMessage); msg != "" {
		b.WriteString(" " + msg)
	}
	b.WriteByte('\n')
	return b.String()
}

// maxProgressMessage bounds the server's text in one progress line.
const maxProgressMessage = 200

// oneLine is s on one line, at most max bytes (valid UTF-8).
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = strings.ToValidUTF8(s[:max], "") + "…"
	}
	return s
}
