// Package longrun measures a long session the way one runs: one process,
// one conversation, thousands of turns. Its Model is a scripted model on the
// OpenAI Chat Completions wire that answers every request with a read_file
// call (then, at the end, a closing text) and notes when each request's
// first byte arrived and when each answer was sent, so that what the
// harness spent between an answer and its next request can be told apart
// from what the model spent and from the request's transfer. The benchmarks of the agent package (in process) and of the
// CLI (through the built binary) share it.
package longrun

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Model is the scripted model. Turns requests are answered with a
// read_file call of Path, the next one with a closing text. Requests
// arrive one at a time (one conversation), so the model keeps one buffer
// for their bodies, read in large chunks as a production server would.
type Model struct {
	// Turns is how many tool-calling answers the model gives.
	Turns int
	// Path is the file each read_file call reads.
	Path string
	// OnRequest, when set, is called with a request's number (from 0) as
	// it arrives, before its body is read: a benchmark samples its
	// counters there without the sampling counting as the harness's time.
	OnRequest func(n int)
	// CPU, when set, reads the CPU time the harness has used so far
	// (ProcessCPU, ThreadsCPU): it is read as each request's first byte
	// arrives and once each answer is sent, so that Tenths can say what
	// the harness used per turn whatever else the machine runs.
	CPU func() time.Duration

	mu    sync.Mutex
	buf   []byte
	times []Times

	fmu         sync.Mutex
	first, hand mark
}

// mark is a moment of a request before its handler runs: when it was
// noted, the harness's CPU time then, and whether it was (since the
// previous answer).
type mark struct {
	at  time.Time
	cpu time.Duration
	set bool
}

// note sets k to now, unless it is set.
func (m *Model) note(k *mark) {
	m.fmu.Lock()
	defer m.fmu.Unlock()
	if !k.set {
		k.at, k.set = time.Now(), true
		if m.CPU != nil {
			k.cpu = m.CPU()
		}
	}
}

// Transport returns rt noting, for the model, when the harness hands each
// request to its HTTP client: give it to the provider of a harness in
// this process (openai.WithHTTPClient). A turn then ends there, before
// any of the request is written, so its time is the harness's alone.
func (m *Model) Transport(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		m.note(&m.hand)
		return rt.RoundTrip(r)
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Listen returns l noting, for the model, when each request's first byte
// arrives. Serve the model on it (httptest.NewUnstartedServer, then set
// its Listener): without it a request counts from its headers' arrival,
// by which time the harness may have written much of a large body.
func (m *Model) Listen(l net.Listener) net.Listener { return &listener{Listener: l, m: m} }

type listener struct {
	net.Listener
	m *Model
}

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c, m: l.m}, nil
}

type conn struct {
	net.Conn
	m *Model
}

func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.m.firstByte()
	}
	return n, err
}

// firstByte notes the time of the first bytes read since the last answer.
func (m *Model) firstByte() { m.note(&m.first) }

// Times is one model call as the model saw it.
type Times struct {
	// Handed is when the harness handed the request to its HTTP client
	// (zero without Transport).
	Handed  time.Time
	First   time.Time // the request's first byte arrived (Arrived without Listen)
	Arrived time.Time // the request's headers were read
	Read    time.Time // its body was read to the end
	Sent    time.Time // the answer's last event was flushed
	Bytes   int       // the body's length
	// The harness's CPU time (Model.CPU) when the request was handed over
	// (or else when its first byte arrived) and when the answer was sent.
	HandedCPU, FirstCPU, SentCPU time.Duration
}

// ServeHTTP answers POST .../chat/completions.
func (m *Model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	var cpu time.Duration
	if m.CPU != nil {
		cpu = m.CPU()
	}
	first := arrived
	m.fmu.Lock()
	if m.first.set {
		first, cpu = m.first.at, m.first.cpu
	}
	hand := m.hand
	m.fmu.Unlock()
	n := len(m.times)
	if m.OnRequest != nil {
		m.OnRequest(n)
	}
	size, err := Drain(&m.buf, r.Body)
	if err != nil {
		http.Error(w, `{"error":{"message":"reading the body failed"}}`, http.StatusBadRequest)
		return
	}
	t := Times{First: first, Arrived: arrived, Read: time.Now(), Bytes: size, FirstCPU: cpu}
	if hand.set {
		t.Handed, t.HandedCPU = hand.at, hand.cpu
	}
	w.Header().Set("Content-Type", "text/event-stream")
	if n < m.Turns {
		WriteAnswer(w, n, "Reading the file again.", "read_file", fmt.Sprintf(`{"path":%q}`, m.Path), size)
	} else {
		WriteAnswer(w, n, "", "", "", size)
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	t.Sent = time.Now()
	if m.CPU != nil {
		t.SentCPU = m.CPU()
	}
	m.fmu.Lock()
	m.first.set, m.hand.set = false, false // what comes next is the next request's
	m.fmu.Unlock()
	m.times = append(m.times, t)
}

// Drain reads body to its end through *buf (1 MiB, made when nil: a
// scripted model reads its requests in large chunks, as a production
// server would) and returns its length.
func Drain(buf *[]byte, body io.Reader) (int, error) {
	if *buf == nil {
		*buf = make([]byte, 1<<20)
	}
	n := 0
	for {
		k, err := body.Read(*buf)
		n += k
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// Calls returns a copy of what the model saw of each call so far.
func (m *Model) Calls() []Times {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.times)
}

// Tenth is one tenth of a run's turns.
type Tenth struct {
	// Harness is the mean time from an answer sent to the next request
	// handed to the HTTP client (Model.Transport), or else to its first
	// byte: the harness parsing the answer, running the tool, storing both
	// messages and building the next request.
	Harness time.Duration
	// Median is the median of the same times: on a shared machine a few
	// turns that waited for the processor move the mean, not the median.
	Median time.Duration
	// Transfer is the mean time from the end of a turn to the request's
	// last byte: the history crossing the loopback, which grows with it
	// whoever the client is.
	Transfer time.Duration
	// CPU is the mean CPU time the harness used per turn, from an answer
	// sent to the end of the turn: unlike the times above, what
	// the machine's other work takes does not count (0 without Model.CPU).
	CPU time.Duration
	// Bytes is the mean request body.
	Bytes int
}

// Tenths splits calls (one run's, in order) into ten parts by turn and
// returns the first and the last. Turn k is the harness's work between
// call k-1's answer and call k's handing over (or first byte), so the first call (the prompt,
// the session's start) is in neither.
func Tenths(calls []Times) (first, last Tenth, err error) {
	turns := len(calls) - 1
	if turns < 10 {
		return first, last, fmt.Errorf("longrun: %d turns cannot be split into tenths", turns)
	}
	part := func(from, to int) Tenth {
		var h, x, cpu time.Duration
		bytes := 0
		each := make([]time.Duration, 0, to-from)
		for k := from; k < to; k++ {
			end, endCPU := calls[k].First, calls[k].FirstCPU
			if !calls[k].Handed.IsZero() {
				end, endCPU = calls[k].Handed, calls[k].HandedCPU
			}
			d := end.Sub(calls[k-1].Sent)
			h += d
			each = append(each, d)
			x += calls[k].Read.Sub(end)
			cpu += max(endCPU-calls[k-1].SentCPU, 0)
			bytes += calls[k].Bytes
		}
		slices.Sort(each)
		n := time.Duration(to - from)
		return Tenth{Harness: h / n, Median: each[len(each)/2], Transfer: x / n, CPU: cpu / n, Bytes: bytes / int(n)}
	}
	tenth := turns / 10
	return part(1, 1+tenth), part(len(calls)-tenth, len(calls)), nil
}

// WriteAnswer writes one streamed Chat Completions answer to w: text and
// a call of tool with arguments args (id call_<n>), or, when tool is "",
// the closing "done"; then the usage of a prompt of size bytes.
func WriteAnswer(w io.Writer, n int, text, tool, args string, size int) {
	const head = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o","choices":[{"index":0,"delta":`
	emit := func(delta, finish string) {
		fmt.Fprintf(w, "data: %s%s,\"finish_reason\":%s}]}\n\n", head, delta, finish)
	}
	emit(`{"role":"assistant","content":""}`, "null")
	if tool != "" {
		emit(fmt.Sprintf(`{"content":%q}`, text), "null")
		emit(fmt.Sprintf(`{"tool_calls":[{"index":0,"id":"call_%d","type":"function","function":{"name":%q,"arguments":""}}]}`, n, tool), "null")
		emit(fmt.Sprintf(`{"tool_calls":[{"index":0,"function":{"arguments":%q}}]}`, args), "null")
		emit(`{}`, `"tool_calls"`)
	} else {
		emit(`{"content":"done"}`, "null")
		emit(`{}`, `"stop"`)
	}
	fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1741570283,\"model\":\"gpt-4o\",\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":20,\"total_tokens\":%d}}\n\n", size/4, size/4+20)
	fmt.Fprint(w, "data: [DONE]\n\n")
}
