package config

import (
	"fmt"
	"time"

	"github.com/harness9/harness9/hook"
)

// HooksConfig is the [hooks] configuration: the user's own hooks, which
// always run, and the project's (<workdir>/.harness9/config.toml), which
// the CLI runs only when the user trusts the project.
type HooksConfig struct {
	// Unconfined lets hooks run without the kernel sandbox when it is off
	// or unavailable. Only the user's config.toml can set it.
	Unconfined bool
	User       []hook.Hook
	Project    []hook.Hook
}

// hookEntry is one [[hooks.EVENT]] table.
type hookEntry struct {
	Matcher string `toml:"matcher"`
	Command string `toml:"command"`
	Timeout string `toml:"timeout"`
}

// hookLists are the [[hooks.EVENT]] arrays.
type hookLists struct {
	PreToolUse       []hookEntry `toml:"pre_tool_use"`
	PostToolUse      []hookEntry `toml:"post_tool_use"`
	UserPromptSubmit []hookEntry `toml:"user_prompt_submit"`
	Stop             []hookEntry `toml:"stop"`
	SessionStart     []hookEntry `toml:"session_start"`
}

// hooksFile mirrors the user's [hooks].
type hooksFile struct {
	Unconfined       bool        `toml:"unconfined"`
	PreToolUse       []hookEntry `toml:"pre_tool_use"`
	PostToolUse      []hookEntry `toml:"post_tool_use"`
	UserPromptSubmit []hookEntry `toml:"user_prompt_submit"`
	Stop             []hookEntry `toml:"stop"`
	SessionStart     []hookEntry `toml:"session_start"`
}

func (f hooksFile) lists() hookLists {
	return hookLists{f.PreToolUse, f.PostToolUse, f.UserPromptSubmit, f.Stop, f.SessionStart}
}

// parseHooks turns the [[hooks.EVENT]] tables of source into hooks,
// checked the way the hook runner will check them (workdir anchors the
// matchers' path globs).
func parseHooks(l hookLists, source, workdir string) ([]hook.Hook, error) {
	var out []hook.Hook
	for _, ev := range []struct {
		name    hook.Name
		entries []hookEntry
	}{
		{hook.SessionStart, l.SessionStart}, {hook.UserPromptSubmit, l.UserPromptSubmit},
		{hook.PreToolUse, l.PreToolUse}, {hook.PostToolUse, l.PostToolUse}, {hook.Stop, l.Stop},
	} {
		for i, e := range ev.entries {
			key := fmt.Sprintf("hooks.%s[%d]", ev.name, i)
			h := hook.Hook{Event: ev.name, Matcher: e.Matcher, Command: e.Command, Source: source}
			if e.Timeout != "" {
				d, err := time.ParseDuration(e.Timeout)
				if err != nil || d <= 0 {
					return nil, fmt.Errorf("%s: key %s.timeout: %q is not a positive duration like \"30s\"", source, key, e.Timeout)
				}
				h.Timeout = d
			}
			if _, err := hook.New(workdir, []hook.Hook{h}); err != nil {
				return nil, fmt.Errorf("key %s: %w", key, err)
			}
			out = append(out, h)
		}
	}
	return out, nil
}
