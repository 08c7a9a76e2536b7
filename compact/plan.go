package compact

import (
	"errors"
	"fmt"

	"github.com/harness9/harness9/llm"
)

// The compaction rule. Plan decides, from the session's history and what
// has been compacted so far, what to do before a model call; it calls no
// model and keeps no state, so every engine that asks it with the same
// history gets the same answer.
//
//   - It acts when the next request passes the threshold (a share of the
//     window), and aims at a low-water mark well below it: the fixed part
//     (system prompt and tool definitions) plus half of the room between it
//     and the threshold.
//   - First it shortens old tool outputs (Elide), oldest first, but never
//     one the model has not seen yet. That costs no model call; when it
//     reaches the low-water mark, that is all.
//   - Otherwise it summarises the older messages, keeping verbatim the
//     newest ones that fit under the mark (at most keepRecent, at least
//     the last turn). A summary must take at least a quarter of the room
//     out of the request, so the model is never asked to summarise again
//     before enough new content came to matter, unless the request would
//     not fit the window otherwise and does with the summary.
//   - When the fixed part alone passes the threshold, nothing compaction
//     can do helps: Plan returns ErrFixedPartTooLarge.

// ErrFixedPartTooLarge is returned (wrapped, with the numbers) by Plan when
// the system prompt and tool definitions alone pass the compaction
// threshold: every request would need compacting and none could be made
// small enough.
var ErrFixedPartTooLarge = errors.New("the system prompt and tool definitions alone pass the compaction threshold")

// Action is what a compaction does.
type Action int

const (
	// None: the request fits; nothing is compacted.
	None Action = iota
	// Trim shortens old tool outputs; no model call.
	Trim
	// Summarise has the model summarise the older messages (and shortens
	// old tool outputs among those kept).
	Summarise
)

func (a Action) String() string {
	switch a {
	case Trim:
		return "trim"
	case Summarise:
		return "summarise"
	}
	return "none"
}

// Reason says why a compaction happened.
type Reason string

const (
	// ReasonThreshold: the request passed the threshold.
	ReasonThreshold Reason = "threshold"
	// ReasonWindow: the request would not fit the window, so the model
	// summarised before the usual amount of new content had come.
	ReasonWindow Reason = "window"
	// ReasonManual: someone asked for it (the /compact command).
	ReasonManual Reason = "manual"
)

// Situation is what Plan decides from.
type Situation struct {
	// History is the whole conversation; the first Covered messages are
	// never read (they may be placeholders).
	History []llm.Message
	// Summary is the text of the summary message standing in for
	// History[:Covered] as it is sent (Active Tasks included), "" if none.
	Summary string
	// Covered is the number of messages the summary stands in for.
	Covered int
	// Elided is where shortened tool outputs end: tool results in
	// History[Covered:Elided] are sent as Elide makes them.
	Elided int
	// Fixed is the estimated size of the system prompt and tool
	// definitions, in tokens.
	Fixed int
	// Window is the model's context window in tokens.
	Window int
	// Tokens is the measured size of the next request (the provider's
	// figure where known), or 0; estimates are scaled to match it.
	Tokens int
	// Manual asks for a summary whatever the sizes.
	Manual bool
}

// Plan is a compaction decided by Compactor.Plan. Covered and Elided are
// the values to store once it is carried out.
type Plan struct {
	Action  Action
	Reason  Reason
	Covered int
	Elided  int
	// Threshold and LowWater are the marks in tokens; Fixed and Window
	// are the Situation's.
	Threshold, LowWater, Fixed, Window int
	// BeforeTokens is the estimated size of the history as sent (summary
	// included, system prompt and tools excluded); AfterTokens what it
	// will be, for a summary with the previous one's size as a guess.
	BeforeTokens, AfterTokens int
	// Shortened is the number of tool outputs sent whole until now that
	// will be sent shortened (not counting those a summary now covers).
	Shortened int
}

const (
	// minGainShare of the room a summary must take out of the request.
	minGainShare = 0.25
	// summaryGuess is the size assumed for a first summary when choosing
	// how much to keep verbatim.
	summaryGuess = 256
)

// sized is a history with the size of each message as sent now and
// shortened.
type sized struct {
	msgs        []llm.Message
	now, short  []int
	seen        int // index of the last assistant message; -1 if none
	summary     int // tokens of the summary message
	elidedAfter int // first index not shortened today
}

func msgTokens(m llm.Message) int { return EstimateTokens("", []llm.Message{m}, nil) }

func measure(s Situation) sized {
	covered := min(max(s.Covered, 0), len(s.History))
	h := s.History[covered:]
	z := sized{msgs: h, now: make([]int, len(h)), short: make([]int, len(h)), seen: -1,
		elidedAfter: min(max(s.Elided-covered, 0), len(h))}
	if s.Summary != "" {
		z.summary = msgTokens(SummaryMessage(s.Summary))
	}
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == llm.RoleAssistant {
			z.seen = i
			break
		}
	}
	for i, m := range h {
		n := msgTokens(m)
		z.now[i], z.short[i] = n, n
		if i < z.seen && m.Role == llm.RoleTool {
			if e := Elide(m); e.Content != m.Content || len(e.Images) != len(m.Images) {
				z.short[i] = msgTokens(e)
			}
			if i < z.elidedAfter {
				z.now[i] = z.short[i]
			}
		}
	}
	return z
}

// Plan decides what to compact before the next model call. It returns an
// error wrapping ErrFixedPartTooLarge when the fixed part alone passes the
// threshold, and one wrapping ErrTooShort when a manual compaction finds
// nothing to summarise.
func (c *Compactor) Plan(s Situation) (Plan, error) {
	covered := min(max(s.Covered, 0), len(s.History))
	p := Plan{Covered: covered, Elided: max(s.Elided, covered), Fixed: s.Fixed, Window: s.Window,
		Threshold: int(c.threshold * float64(s.Window))}
	if s.Window <= 0 {
		return p, nil
	}
	z := measure(s)
	hist := z.summary
	for _, n := range z.now {
		hist += n
	}
	p.BeforeTokens, p.AfterTokens = hist, hist
	// Estimates are scaled to the measured size: a model whose tokenizer
	// counts more than ours is compacted in time, one that counts fewer
	// is not compacted early.
	scale := 1.0
	if cur := s.Fixed + hist; s.Tokens > 0 && cur > 0 {
		scale = float64(s.Tokens) / float64(cur)
	}
	high := float64(p.Threshold) / scale
	fixed := float64(s.Fixed)
	if fixed >= high {
		return p, fmt.Errorf("%w: they take about %d tokens, and compaction starts at %d (%d%% of the model's %d-token context window), "+
			"so no room is left for the conversation; use a model with a larger context window, or fewer tools",
			ErrFixedPartTooLarge, int(fixed*scale), p.Threshold, int(c.threshold*100+0.5), s.Window)
	}
	room := high - fixed
	low := fixed + c.lowWater*room
	p.LowWater = int(low * scale)
	if !s.Manual && fixed+float64(hist) <= high {
		return p, nil
	}

	// Shorten old outputs, oldest first, down to the low-water mark.
	e, after := z.shorten(0, hist, func(n int) bool { return fixed+float64(n) > low })
	if !s.Manual && fixed+float64(after) <= low {
		return trimmed(p, &z, e, after), nil
	}
	// Not enough: see what a summary would take out, the messages counted
	// with every output the model has seen shortened.
	guess := max(z.summary, summaryGuess)
	budget := int(low-fixed) - guess
	k := z.split(c.keepRecent, budget)
	gain := 0
	for i := range k {
		gain += z.form(i)
	}
	// The kept messages' outputs are shortened as far as the mark needs.
	keptNow := 0
	for i := k; i < len(z.now); i++ {
		keptNow += z.now[i]
	}
	ek, kept := z.shorten(k, keptNow, func(n int) bool { return n > budget })
	sum := func(why Reason) Plan {
		p.Action, p.Reason = Summarise, why
		p.Covered, p.Elided, p.AfterTokens = covered+k, covered+ek, guess+kept
		p.Shortened = z.shortened(k, ek)
		return p
	}
	switch {
	case s.Manual && k == 0:
		return p, fmt.Errorf("%w: everything after the summary is the last turn, which is always kept", ErrTooShort)
	case s.Manual:
		return sum(ReasonManual), nil
	case k > 0 && float64(gain) >= minGainShare*room:
		return sum(ReasonThreshold), nil
	case k > 0 && fixed+float64(after) > float64(s.Window)/scale && fixed+float64(guess+kept) <= float64(s.Window)/scale:
		// Summarising now is worth it only if the request then fits.
		return sum(ReasonWindow), nil
	case e > z.elidedAfter:
		return trimmed(p, &z, e, after), nil
	}
	return p, nil
}

func trimmed(p Plan, z *sized, e, after int) Plan {
	p.Action, p.Reason, p.Elided, p.AfterTokens = Trim, ReasonThreshold, p.Covered+e, after
	p.Shortened = z.shortened(0, e)
	return p
}

// shortened counts the outputs in [from, to) sent whole today that are
// shortened once what is shortened ends at to.
func (z *sized) shortened(from, to int) int {
	n := 0
	for i := max(from, z.elidedAfter); i < to; i++ {
		if z.short[i] < z.now[i] {
			n++
		}
	}
	return n
}

// shorten shortens the outputs the model has seen from index from on
// (never before what is shortened already), oldest first, while over says
// total is still too much. It returns where the shortened outputs end and
// the total after.
func (z *sized) shorten(from, total int, over func(int) bool) (end, after int) {
	end, after = max(from, z.elidedAfter), total
	for i := end; i < z.seen && over(after); i++ {
		if z.short[i] < z.now[i] {
			after -= z.now[i] - z.short[i]
			end = i + 1
		}
	}
	return end, after
}

// form is the size of message i with every output the model has seen
// shortened.
func (z *sized) form(i int) int {
	if i < z.seen {
		return z.short[i]
	}
	return z.now[i]
}

// split returns where a summary should end: the first message kept
// verbatim. It keeps at most keepRecent messages, fewer while they pass
// budget tokens, and never fewer than the last turn (from the model's
// last message on); it never separates a tool call from its result. It
// returns 0 when nothing can be summarised.
func (z *sized) split(keepRecent, budget int) int {
	h := z.msgs
	last := z.seen
	if last < 0 {
		last = len(h) - 1
	}
	valid := validSplits(h)
	k := 0
	for j := max(len(h)-keepRecent, 1); j <= last; j++ {
		if valid[j] {
			k = j
			break
		}
	}
	if k == 0 {
		for j := last; j >= 1 && k == 0; j-- {
			if valid[j] {
				k = j
			}
		}
		return k
	}
	keptK := 0
	for i := k; i < len(h); i++ {
		keptK += z.form(i)
	}
	run := keptK
	for j := k + 1; j <= last && keptK > budget; j++ {
		run -= z.form(j - 1)
		if valid[j] {
			k, keptK = j, run
		}
	}
	return k
}

// validSplits reports, for each index k, whether history[k:] can be kept
// verbatim without separating a tool call from its result (see SplitPoint).
func validSplits(history []llm.Message) []bool {
	valid := make([]bool, len(history)+1)
	issuer := issuers(history)
	minIssuer := len(history)
	for k := len(history) - 1; k >= 0; k-- {
		if issuer[k] >= 0 {
			minIssuer = min(minIssuer, issuer[k])
		}
		valid[k] = history[k].Role != llm.RoleTool && minIssuer >= k
	}
	return valid
}
