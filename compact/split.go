package compact

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/harness9/harness9/llm"
)

// SplitPoint returns the index of the first message to keep verbatim when at
// least keepRecent of the newest messages must stay. The split moves towards
// the start until it separates no tool call from its result: history[k] is
// not a tool result, and no result in history[k:] answers a call made in
// history[:k]. It returns 0 when nothing can be compacted.
func SplitPoint(history []llm.Message, keepRecent int) int {
	k := len(history) - max(keepRecent, 0)
	if k <= 0 {
		return 0
	}
	issuer := issuers(history)
	// minIssuer is the smallest issuer index of the tool results in
	// history[k:], maintained as k moves towards the start.
	minIssuer := len(history)
	for j := len(history) - 1; j > k; j-- {
		if issuer[j] >= 0 {
			minIssuer = min(minIssuer, issuer[j])
		}
	}
	for ; k > 0; k-- {
		if issuer[k] >= 0 {
			minIssuer = min(minIssuer, issuer[k])
		}
		if history[k].Role != llm.RoleTool && minIssuer >= k {
			return k
		}
	}
	return 0
}

// issuers maps each tool result to the index of the assistant message that
// made its call: the nearest earlier assistant message carrying the call's
// ID, else (IDs missing or unmatched) the nearest earlier assistant message
// with any calls. Non-results and orphans get -1. Matching by position copes
// with providers that reuse IDs across turns.
func issuers(history []llm.Message) []int {
	out := make([]int, len(history))
	byID := make(map[string]int)
	lastCaller := -1
	for i, m := range history {
		out[i] = -1
		switch m.Role {
		case llm.RoleAssistant:
			if len(m.ToolCalls) > 0 {
				lastCaller = i
				for _, c := range m.ToolCalls {
					byID[c.ID] = i
				}
			}
		case llm.RoleTool:
			if j, ok := byID[m.ToolCallID]; ok && m.ToolCallID != "" {
				out[i] = j
			} else {
				out[i] = lastCaller
			}
		}
	}
	return out
}

// Caps for the transcript sent to the summariser, in bytes.
const (
	maxTranscript   = 240_000 // about 60k tokens
	capText         = 4000
	capSummary      = 16_000 // an earlier summary is carried nearly whole
	capToolInput    = 300
	capToolResult   = 1200
	transcriptFirst = 1 // leading messages always kept when the cap bites
)

// transcript renders messages as plain text for the summariser: roles as
// headings, tool calls and results abbreviated, each entry capped. When the
// whole exceeds limit bytes, the oldest entries after the first are left out
// (the first message usually states the goal) with a note of how many.
func transcript(msgs []llm.Message, limit int) string {
	entries := make([]string, len(msgs))
	total := 0
	for i, m := range msgs {
		entries[i] = renderEntry(m)
		total += len(entries[i])
	}
	omitted := 0
	for total > limit && transcriptFirst+omitted < len(entries)-1 {
		total -= len(entries[transcriptFirst+omitted])
		omitted++
	}
	var b strings.Builder
	b.Grow(total + 64)
	for i, e := range entries {
		if i >= transcriptFirst && i < transcriptFirst+omitted {
			if i == transcriptFirst {
				fmt.Fprintf(&b, "[... %d messages omitted ...]\n\n", omitted)
			}
			continue
		}
		b.WriteString(e)
	}
	return b.String()
}

func renderEntry(m llm.Message) string {
	var b strings.Builder
	switch m.Role {
	case llm.RoleTool:
		status := ""
		if m.IsError {
			status = " (error)"
		}
		fmt.Fprintf(&b, "[tool result: %s%s]\n%s\n", m.Name, status, clip(m.Content, capToolResult))
	case llm.RoleAssistant:
		b.WriteString("[assistant]\n")
		if m.Content != "" {
			b.WriteString(clip(m.Content, capText))
			b.WriteByte('\n')
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "-> %s %s\n", c.Name, clip(oneLine(string(c.Input)), capToolInput))
		}
	default:
		limit := capText
		if strings.HasPrefix(m.Content, SummaryHeader) {
			limit = capSummary
		}
		fmt.Fprintf(&b, "[%s]\n%s\n", m.Role, clip(m.Content, limit))
	}
	// The summariser gets the placeholders, not the pictures.
	for _, im := range m.Images {
		b.WriteString(im.Placeholder())
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.String()
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// clip keeps the head and tail of s within about max bytes, cutting at rune
// boundaries, with a note of how much was left out.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	head := max * 2 / 3
	tail := max - head
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return fmt.Sprintf("%s … [%d bytes omitted] … %s", s[:head], start-head, s[start:])
}
