// Package compact keeps long sessions inside the model's context window. When
// the estimated context passes a threshold, a Compactor has the model
// summarise the older part of the conversation (Goal, Progress, Next Steps,
// Key files and decisions), keeps the recent messages verbatim, never
// separates a tool call from its result, and appends the active todo items so
// unfinished work survives the compaction. If the model cannot summarise, it
// drops the oldest messages instead and says so.
package compact

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/harness9/harness9/llm"
)

// SummaryHeader starts every summary message, so a summary in a stored
// history can be recognised.
const SummaryHeader = "[Conversation Summary]"

// ErrTooShort is returned (wrapped) by Compact when there is nothing old
// enough to compact: every message falls within the recent part kept
// verbatim.
var ErrTooShort = errors.New("history is too short to compact")

// TodoInjector supplies the active todo items ("[ ] ..." / "[>] ..." lines)
// appended to every summary. planning.TodoStore implements it.
type TodoInjector interface {
	FormatForInjection() string
}

// Result describes one compaction. The caller replaces history[:Keep] with
// SummaryMessage(Summary) and keeps history[Keep:] verbatim.
type Result struct {
	// Summary is the text of the message that replaces history[:Keep].
	Summary string
	// Keep is the index of the first message kept verbatim.
	Keep int
	// BeforeTokens and AfterTokens are EstimateTokens of the messages before
	// and after compaction (system prompt and tools excluded).
	BeforeTokens, AfterTokens int
	// Fallback is set when the model could not summarise and the older
	// messages were dropped instead.
	Fallback bool
	// Note says, for the user, what happened (and why, on fallback).
	Note string
}

// Defaults of a Compactor.
const (
	// DefaultThreshold is the share of the context window past which
	// Needed reports true.
	DefaultThreshold = 0.8
	// DefaultKeepRecent is how many of the newest messages a summary
	// keeps verbatim at most.
	DefaultKeepRecent = 10
	// DefaultLowWater is the share of the room between a request's fixed
	// part and the threshold that a compaction leaves the conversation.
	DefaultLowWater = 0.5
	// DefaultMaxSummaryTokens caps the length of the model's summary.
	DefaultMaxSummaryTokens = 4096
)

// Option configures a Compactor.
type Option func(*Compactor)

// WithThreshold sets the fraction of the context window at which Needed
// reports true (default DefaultThreshold). Values outside (0, 1] are ignored.
func WithThreshold(f float64) Option {
	return func(c *Compactor) {
		if f > 0 && f <= 1 {
			c.threshold = f
		}
	}
}

// WithLowWater sets where a compaction aims, as the share of the room
// between the fixed part of a request (system prompt and tool definitions)
// and the threshold that the conversation may fill afterwards (default
// DefaultLowWater). Values outside (0, 1) are ignored.
func WithLowWater(f float64) Option {
	return func(c *Compactor) {
		if f > 0 && f < 1 {
			c.lowWater = f
		}
	}
}

// WithKeepRecent sets how many of the newest messages a summary keeps
// verbatim at most (default DefaultKeepRecent): Plan keeps fewer when they
// do not fit under the low-water mark, and Compact more so a tool call
// stays with its results. Values below 1 are ignored.
func WithKeepRecent(n int) Option {
	return func(c *Compactor) {
		if n >= 1 {
			c.keepRecent = n
		}
	}
}

// WithMaxSummaryTokens caps the length of the model's summary (default DefaultMaxSummaryTokens).
func WithMaxSummaryTokens(n int) Option {
	return func(c *Compactor) {
		if n > 0 {
			c.maxSummaryTokens = n
		}
	}
}

// Compactor summarises old conversation history. It holds no per-session
// state and is safe for concurrent use.
type Compactor struct {
	p                llm.Provider
	model            string
	threshold        float64
	lowWater         float64
	keepRecent       int
	maxSummaryTokens int
}

// New returns a Compactor that summarises with provider p and the given model
// name (as sent in requests).
func New(p llm.Provider, model string, opts ...Option) *Compactor {
	c := &Compactor{p: p, model: model, threshold: DefaultThreshold, lowWater: DefaultLowWater, keepRecent: DefaultKeepRecent, maxSummaryTokens: DefaultMaxSummaryTokens}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Needed reports whether a context of tokens tokens has passed the threshold
// of a window of window tokens. A non-positive window never needs compaction.
func (c *Compactor) Needed(tokens, window int) bool {
	return window > 0 && float64(tokens) > c.threshold*float64(window)
}

// SummaryMessage wraps a summary as the user message that replaces the
// compacted history.
func SummaryMessage(summary string) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: summary}
}

// Compact summarises history[:Keep] and returns the summary to put in its
// place. todos may be nil. It returns an error wrapping ErrTooShort when
// nothing can be compacted, and ctx's error when ctx ends; a failing model
// call is not an error but a Fallback result that drops the old messages.
func (c *Compactor) Compact(ctx context.Context, history []llm.Message, todos TodoInjector) (Result, error) {
	keep := SplitPoint(history, c.keepRecent)
	if keep <= 0 {
		return Result{}, fmt.Errorf("%w: %d messages, and the newest %d (with their tool calls) are always kept", ErrTooShort, len(history), c.keepRecent)
	}
	res := Result{Keep: keep, BeforeTokens: EstimateTokens("", history, nil)}

	summary, fallback, note := c.summary(ctx, history[:keep], keep, 0, 0)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return Result{}, fmt.Errorf("compaction cancelled: %w", ctxErr)
	}
	res.Summary, res.Fallback, res.Note = summary+activeTasks(todos), fallback, note
	res.AfterTokens = sentTokens(res.Summary, history[keep:], 0)
	return res, nil
}

// Summarise carries out a Summarise plan p made from s: the model
// summarises the previous summary and History[s.Covered:p.Covered] within
// the window's means (a shorter transcript and summary in a small
// window), and the summary ends with the active todos. Keep is p.Covered;
// AfterTokens counts the summary and the messages kept as they will be
// sent. As with Compact, a failing model call gives a Fallback result and
// only ctx's end is an error.
func (c *Compactor) Summarise(ctx context.Context, s Situation, p Plan, todos TodoInjector) (Result, error) {
	from := min(max(s.Covered, 0), len(s.History))
	if p.Action != Summarise || p.Covered <= from || p.Covered > len(s.History) {
		return Result{}, fmt.Errorf("%w: the plan summarises nothing", ErrTooShort)
	}
	old := make([]llm.Message, 0, p.Covered-from+1)
	if s.Summary != "" {
		old = append(old, SummaryMessage(s.Summary))
	}
	old = append(old, s.History[from:p.Covered]...)
	room := max(p.Threshold-p.Fixed, 0)
	summary, fallback, note := c.summary(ctx, old, p.Covered-from, p.Window, room)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return Result{}, fmt.Errorf("compaction cancelled: %w", ctxErr)
	}
	res := Result{Summary: summary + activeTasks(todos), Keep: p.Covered, BeforeTokens: p.BeforeTokens, Fallback: fallback, Note: note}
	res.AfterTokens = sentTokens(res.Summary, s.History[p.Covered:], p.Elided-p.Covered)
	return res, nil
}

// summary asks the model to summarise old and returns the summary's text
// with its header; when the model cannot, the fallback text, and a note
// for the user either way (n is the number of messages it covers). window and room (0: unknown) bound the
// request: the summary may take half the room, the transcript what the
// window leaves.
func (c *Compactor) summary(ctx context.Context, old []llm.Message, n, window, room int) (text string, fallback bool, note string) {
	maxTokens, limit := c.maxSummaryTokens, maxTranscript
	if window > 0 {
		maxTokens = min(maxTokens, max(room/2, minSummaryTokens))
		limit = min(limit, max((window-maxTokens-summaryOverhead)*transcriptBytesPerToken, minTranscript))
	}
	body, err := c.summarise(ctx, old, maxTokens, limit)
	if err != nil {
		return SummaryHeader + "\n" + fallbackBody(old), true,
			fmt.Sprintf("summarising failed (%v); dropped the %d oldest messages instead", err, n)
	}
	return SummaryHeader + "\n" + body, false, fmt.Sprintf("summarised the %d oldest messages", n)
}

// Bounds of a summary request in a small window.
const (
	minSummaryTokens = 256
	// summaryOverhead covers the summariser's instructions and framing.
	summaryOverhead = 1000
	// transcriptBytesPerToken is a cautious ratio (code and prose run
	// at about four bytes a token).
	transcriptBytesPerToken = 3
	minTranscript           = 4096
)

// sentTokens estimates a history made of the summary and rest, with the
// tool results in rest[:elided] shortened.
func sentTokens(summary string, rest []llm.Message, elided int) int {
	msgs := make([]llm.Message, 0, len(rest)+1)
	msgs = append(msgs, SummaryMessage(summary))
	for i, m := range rest {
		if i < elided {
			m = Elide(m)
		}
		msgs = append(msgs, m)
	}
	return EstimateTokens("", msgs, nil)
}

// activeTasksHeading starts the block of pending and in-progress todos at
// the end of a summary.
const activeTasksHeading = "\n\n## Active Tasks\n"

func activeTasks(todos TodoInjector) string {
	if todos == nil {
		return ""
	}
	t := strings.TrimSpace(todos.FormatForInjection())
	if t == "" {
		return ""
	}
	return activeTasksHeading + t
}

// RefreshActiveTasks replaces the Active Tasks block at the end of a stored
// summary with the todo list as it is now, so a summary made several turns
// (or a resume) ago never shows the model a stale list: items finished
// since disappear, items added since appear.
func RefreshActiveTasks(summary string, todos TodoInjector) string {
	if i := strings.LastIndex(summary, activeTasksHeading); i >= 0 {
		summary = summary[:i]
	}
	return summary + activeTasks(todos)
}

// summarise asks the model for a summary of old, in at most maxTokens,
// from a transcript of at most limit bytes. The request carries no tools.
func (c *Compactor) summarise(ctx context.Context, old []llm.Message, maxTokens, limit int) (string, error) {
	if c.p == nil {
		return "", errors.New("no provider configured for summaries")
	}
	req := llm.Request{
		Model:     c.model,
		System:    summaryPrompt,
		MaxTokens: maxTokens,
		Messages: []llm.Message{{
			Role:    llm.RoleUser,
			Content: "Summarise this conversation transcript:\n\n<transcript>\n" + transcript(old, limit) + "</transcript>",
		}},
	}
	resp, err := llm.Collect(c.p.Stream(ctx, req))
	if err != nil {
		return "", fmt.Errorf("model %s: %w", c.model, err)
	}
	text := strings.TrimSpace(resp.Message.Content)
	text = strings.TrimSpace(strings.TrimPrefix(text, SummaryHeader))
	if text == "" {
		return "", errors.New("the model returned an empty summary")
	}
	return text, nil
}

// fallbackBody is the summary used when the model could not summarise: a
// note of what was dropped and the user's first request, which usually
// states the goal.
func fallbackBody(old []llm.Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The %d oldest messages of this conversation were dropped to fit the context window (they could not be summarised). Re-read files or ask the user if you need details from them.", len(old))
	for _, m := range old {
		if m.Role == llm.RoleUser && m.Content != "" {
			b.WriteString("\n\nThe conversation began with this request:\n")
			b.WriteString(clip(m.Content, 2000))
			break
		}
	}
	return b.String()
}

const summaryPrompt = `You compact the history of a coding-agent session. The agent will continue the work with only your summary and the most recent messages, so the summary must carry everything it needs.

Write concise markdown with exactly these sections:

**Goal**
What the user asked for, including constraints and preferences they stated.

**Progress**
What has been done and verified so far: changes made, commands run and their outcome, errors hit and how they were fixed.

**Next Steps**
What remains to be done, in order.

**Key files and decisions**
File paths, functions, types, commands and design decisions the agent must remember, with one line each on why they matter.

Rules: be specific (exact paths, names, commands, error messages); state only what the transcript shows; do not call tools; do not repeat the todo list, it is appended separately.`
