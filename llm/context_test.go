package llm

import "testing"

func TestContextWindow(t *testing.T) {
	cases := map[string]int{
		"gpt-4o":                           128000,
		"gpt-4o-mini-2024-07-18":           128000,
		"gpt-4.1-nano":                     1047576,
		"gpt-4-0613":                       8192,
		"gpt-5-mini":                       400000,
		"gpt-5-chat-latest":                128000,
		"o3-mini":                          200000,
		"o4-mini":                          200000,
		"claude-sonnet-4-5-20250929":       200000,
		"anthropic/claude-3-5-haiku":       200000,
		"deepseek-chat":                    128000,
		"deepseek-reasoner":                128000,
		"deepseek-ai/DeepSeek-V3":          128000,
		"qwen2.5-coder:32b":                32768,
		"Qwen/Qwen3-Coder-480B-A35B":       262144,
		"llama3.1:8b":                      131072,
		"llama3:8b":                        8192,
		"meta-llama/Meta-Llama-3.1-70B":    131072,
		"openrouter/google/gemini-2.5-pro": 1048576,
		"us.anthropic.claude-sonnet-4-5-20250929-v1:0": 200000,
		"anthropic.claude-3-5-sonnet-20240620-v1:0":    200000,
		"claude-sonnet-4-5@20250929":                   200000,
		"some-unknown-model":                           DefaultContextWindow,
		"":                                             DefaultContextWindow,
	}
	for model, want := range cases {
		if got := ContextWindow(model); got != want {
			t.Errorf("ContextWindow(%q) = %d, want %d", model, got, want)
		}
	}
}

func TestSupportsVision(t *testing.T) {
	for model, want := range map[string]bool{
		"gpt-4o-mini": true, "openai/gpt-4.1": true, "gpt-3.5-turbo": false, "gpt-4": false,
		"claude-sonnet-4-5": true, "anthropic/claude-3-haiku": true, "claude-2.1": false,
		"o3-mini": false, "o3": true, "deepseek-chat": false, "llama3.2-vision:11b": true,
		"llama3.2": false, "qwen2.5-vl-7b": true, "unknown-model": false, "": false,
		"eu.anthropic.claude-haiku-4-5-20251001-v1:0": true, "claude-opus-4-1@20250805": true,
	} {
		if got := SupportsVision(model); got != want {
			t.Errorf("SupportsVision(%q) = %v, want %v", model, got, want)
		}
	}
}
