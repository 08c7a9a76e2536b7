package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/harness9/harness9/llm"
)

// Defaults for a Registry.
const (
	DefaultTimeout   = 2 * time.Minute
	DefaultMaxOutput = 32 * 1024
	// DefaultAbandonGrace is how long a tool may take to return after its
	// context ended before the registry stops waiting for it.
	DefaultAbandonGrace = 5 * time.Second
)

// TimeoutOverride is implemented by tools that manage their own time limit
// (bash with timeout_secs). The Registry then uses the returned duration,
// plus a short grace period, instead of its default per-call timeout.
type TimeoutOverride interface {
	Timeout(input json.RawMessage) time.Duration
}

// Registry holds the tools of an agent. It is the single place where calls
// are executed, so the mode gate, timeouts, panic recovery and output caps
// apply to every tool alike. It is safe for concurrent use.
type Registry struct {
	mu           sync.RWMutex
	tools        []Tool
	byName       map[string]Tool
	schemas      map[string]*lazySchema // resolved at a tool's first call
	timeout      time.Duration
	maxOutput    int
	abandonGrace time.Duration
}

// RegistryOption configures a Registry.
type RegistryOption func(*Registry)

// WithTimeout sets the default per-call timeout.
func WithTimeout(d time.Duration) RegistryOption {
	return func(r *Registry) {
		if d > 0 {
			r.timeout = d
		}
	}
}

// WithMaxOutput caps, in bytes, the output a tool result returns to the model.
func WithMaxOutput(n int) RegistryOption {
	return func(r *Registry) {
		if n > 0 {
			r.maxOutput = n
		}
	}
}

// WithAbandonGrace sets how long a tool may take to return after its
// deadline or cancellation before the registry gives up waiting for it.
func WithAbandonGrace(d time.Duration) RegistryOption {
	return func(r *Registry) {
		if d > 0 {
			r.abandonGrace = d
		}
	}
}

// NewRegistry returns an empty registry.
func NewRegistry(opts ...RegistryOption) *Registry {
	r := &Registry{byName: map[string]Tool{}, schemas: map[string]*lazySchema{}, timeout: DefaultTimeout, maxOutput: DefaultMaxOutput, abandonGrace: DefaultAbandonGrace}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Register adds tools. A name already registered is an error and nothing of
// that call is added.
func (r *Registry) Register(ts ...Tool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	for _, t := range ts {
		name := t.Name()
		if name == "" {
			return errors.New("tool: cannot register a tool with an empty name")
		}
		if _, dup := r.byName[name]; dup || seen[name] {
			return fmt.Errorf("tool: a tool named %q is already registered", name)
		}
		seen[name] = true
	}
	for _, t := range ts {
		r.tools = append(r.tools, t)
		r.byName[t.Name()] = t
		r.schemas[t.Name()] = &lazySchema{tool: t}
	}
	return nil
}

// Replace removes the tools named in remove and registers add in one
// step (a tool source's new list): the added tools take the place of the
// first removed one, so the order of the others stays. A name of add that
// another remaining tool has is an error and nothing changes.
func (r *Registry) Replace(remove []string, add ...Tool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	gone := make(map[string]bool, len(remove))
	for _, n := range remove {
		gone[n] = true
	}
	seen := map[string]bool{}
	for _, t := range add {
		name := t.Name()
		if _, dup := r.byName[name]; name == "" || (dup && !gone[name]) || seen[name] {
			return fmt.Errorf("tool: cannot register %q: the name is empty or taken", name)
		}
		seen[name] = true
	}
	at := -1
	kept := r.tools[:0:0]
	for _, t := range r.tools {
		if gone[t.Name()] {
			if at < 0 {
				at = len(kept)
			}
			delete(r.byName, t.Name())
			delete(r.schemas, t.Name())
			continue
		}
		kept = append(kept, t)
	}
	if at < 0 {
		at = len(kept)
	}
	r.tools = slices.Concat(kept[:at], add, kept[at:])
	for _, t := range add {
		r.byName[t.Name()] = t
		r.schemas[t.Name()] = &lazySchema{tool: t}
	}
	return nil
}

// Lookup returns the tool registered under name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.byName[name]
	return t, ok
}

// Tools returns the registered tools in registration order.
func (r *Registry) Tools() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]Tool(nil), r.tools...)
}

// Definitions returns the definitions the gate lets the model see, in
// registration order. A nil gate shows every tool.
func (r *Registry) Definitions(g Gate) []llm.ToolDef {
	r.mu.RLock()
	defer r.mu.RUnlock()
	defs := make([]llm.ToolDef, 0, len(r.tools))
	for _, t := range r.tools {
		if g != nil && !g.Visible(t.Name()) {
			continue
		}
		defs = append(defs, llm.ToolDef{Name: t.Name(), Description: t.Description(), InputSchema: t.Schema()})
	}
	return defs
}

// Execute runs one call. Every failure the model can act on comes back as an
// error Result: an unknown tool, a call the gate refuses, malformed
// arguments or arguments that do not match the tool's schema, a panic, a timeout, or an error returned by the tool. When ctx
// itself is cancelled the Result says so too; callers check ctx.Err().
func (r *Registry) Execute(ctx context.Context, g Gate, call llm.ToolCall) Result {
	t, ok := r.Lookup(call.Name)
	if !ok {
		return Errorf("unknown tool %q. Available tools: %s", call.Name, strings.Join(r.visibleNames(g), ", "))
	}
	if g != nil {
		if err := g.Check(call.Name, call.Input); err != nil {
			refused(ctx, call.Name, err)
			return Errorf("%v", err)
		}
	}
	if len(call.Input) > 0 && !json.Valid(call.Input) {
		return Errorf("%s: arguments are not valid JSON; send one JSON object matching the tool's schema", call.Name)
	}
	r.mu.RLock()
	lazy := r.schemas[call.Name]
	r.mu.RUnlock()
	if schema := lazy.get(); schema != nil {
		if err := validateInput(call.Name, schema, call.Input); err != nil {
			return Errorf("%v", err)
		}
	}
	res := r.run(ctx, t, call)
	res.Output = Truncate(res.Output, r.maxOutput)
	return res
}

func (r *Registry) run(ctx context.Context, t Tool, call llm.ToolCall) Result {
	timeout := r.timeout
	if o, ok := t.(TimeoutOverride); ok {
		if d := o.Timeout(call.Input); d > 0 {
			timeout = d + 5*time.Second
		}
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	// The tool runs in its own goroutine so that one which ignores its
	// context (a user's or an MCP tool stuck in a call without a deadline)
	// cannot hold the run loop, and Ctrl+C, hostage: after the deadline or
	// cancellation it gets a grace period, then the loop moves on without it.
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- outcome{res: Errorf("%s failed with an internal error (panic: %v); try different arguments or another tool", call.Name, p)}
			}
		}()
		res, err := t.Execute(cctx, call.Input)
		done <- outcome{res, err}
	}()
	var o outcome
	select {
	case o = <-done:
	case <-cctx.Done():
		grace := time.NewTimer(r.abandonGrace)
		defer grace.Stop()
		select {
		case o = <-done:
		case <-grace.C:
			why := fmt.Sprintf("timed out after %s", timeout)
			if ctx.Err() != nil {
				why = "was cancelled"
			}
			return Errorf("%s %s and did not stop within %s; it was abandoned and may still be running", call.Name, why, r.abandonGrace)
		}
	}
	switch {
	case ctx.Err() != nil:
		return Errorf("%s was cancelled", call.Name)
	case errors.Is(cctx.Err(), context.DeadlineExceeded) && (o.err != nil || o.res.IsError):
		return Errorf("%s timed out after %s", call.Name, timeout)
	case o.err != nil:
		return Errorf("%s failed: %v", call.Name, o.err)
	}
	return o.res
}

// ExecuteBatch runs the calls of one assistant message, batch by batch
// (BatchLen): the calls of a batch run concurrently. Results keep the
// calls' order.
func (r *Registry) ExecuteBatch(ctx context.Context, g Gate, calls []llm.ToolCall) []Result {
	results := make([]Result, len(calls))
	for i := 0; i < len(calls); {
		n := r.BatchLen(calls[i:])
		if n == 1 {
			results[i] = r.Execute(ctx, g, calls[i])
			i++
			continue
		}
		var wg sync.WaitGroup
		for k := i; k < i+n; k++ {
			wg.Go(func() { results[k] = r.Execute(ctx, g, calls[k]) })
		}
		wg.Wait()
		i += n
	}
	return results
}

// BatchLen returns how many calls from the start of calls may run
// together: every leading call to a tool that declares itself read-only
// (they cannot disturb one another) or concurrency-safe (Concurrent), or
// just the first call. It is the one
// grouping rule; the engine batches by it too.
func (r *Registry) BatchLen(calls []llm.ToolCall) int {
	n := 0
	for n < len(calls) && r.batches(calls[n].Name) {
		n++
	}
	return min(max(n, 1), len(calls))
}

// batches reports whether the named tool declares itself read-only or
// concurrency-safe.
func (r *Registry) batches(name string) bool {
	t, ok := r.Lookup(name)
	if !ok {
		return false
	}
	if c, ok := t.(Concurrent); ok && c.ConcurrencySafe() {
		return true
	}
	ro, ok := t.(ReadOnly)
	return ok && ro.ReadOnly()
}

func (r *Registry) visibleNames(g Gate) []string {
	defs := r.Definitions(g)
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	return names
}

// Truncate caps s at max bytes, keeping the head and the tail and saying how
// much was cut in between. Cuts fall on line boundaries when one is near.
func Truncate(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	keep := max - 80
	if keep < 2 {
		keep = 2
	}
	head, tail := keep*2/3, keep/3
	// Never split a UTF-8 sequence: move both cuts to rune starts.
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail > 0 && !utf8.RuneStart(s[len(s)-tail]) {
		tail--
	}
	h := s[:head]
	if i := strings.LastIndexByte(h, '\n'); i > head/2 {
		h = h[:i+1]
	}
	t := s[len(s)-tail:]
	if i := strings.IndexByte(t, '\n'); i >= 0 && i < tail/2 {
		t = t[i+1:]
	}
	cut := len(s) - len(h) - len(t)
	return fmt.Sprintf("%s\n[... %d bytes (%d lines) cut from the middle of this output ...]\n%s",
		h, cut, strings.Count(s[len(h):len(s)-len(t)], "\n"), t)
}
