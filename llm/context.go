package llm

import "strings"

// DefaultContextWindow is the window assumed for a model the table does not know.
const DefaultContextWindow = 128000

// contextWindows maps lower-case model-name prefixes to context windows in
// tokens. The longest matching prefix wins, so specific entries ("gpt-4o")
// override general ones ("gpt-4"). Values are the documented input windows;
// where a model family varies by deployment (Ollama defaults, Llama, Qwen) the
// conservative figure is used so that compaction starts early rather than late.
var contextWindows = map[string]int{
	// OpenAI
	"gpt-3.5-turbo": 16385,
	"gpt-4":         8192,
	"gpt-4-32k":     32768,
	"gpt-4-turbo":   128000,
	"gpt-4o":        128000,
	"chatgpt-4o":    128000,
	"gpt-4.1":       1047576,
	"gpt-4.5":       128000,
	"gpt-5":         400000,
	"gpt-5-chat":    128000,
	"gpt-oss":       131072,
	"o1":            200000,
	"o1-mini":       128000,
	"o1-preview":    128000,
	"o3":            200000,
	"o4-mini":       200000,
	"codex-mini":    200000,
	// Anthropic
	"claude":         200000,
	"claude-2":       100000,
	"claude-instant": 100000,
	// DeepSeek
	"deepseek":       128000,
	"deepseek-coder": 128000,
	// Qwen
	"qwen":        32768,
	"qwen2":       32768,
	"qwen2.5":     32768,
	"qwen3":       40960,
	"qwen3-coder": 262144,
	"qwen-plus":   131072,
	"qwen-max":    32768,
	"qwq":         131072,
	// Meta Llama
	"llama2":    4096,
	"llama-2":   4096,
	"llama3":    8192,
	"llama-3":   8192,
	"llama3.1":  131072,
	"llama-3.1": 131072,
	"llama3.2":  131072,
	"llama-3.2": 131072,
	"llama3.3":  131072,
	"llama-3.3": 131072,
	"llama4":    131072,
	"llama-4":   131072,
	// Mistral
	"mistral":       32768,
	"mistral-large": 131072,
	"mistral-small": 32768,
	"mistral-nemo":  131072,
	"codestral":     256000,
	"devstral":      131072,
	"mixtral":       32768,
	// Google
	"gemini":         1048576,
	"gemini-1.0":     32768,
	"gemini-1.5-pro": 2097152,
	"gemma2":         8192,
	"gemma-2":        8192,
	"gemma3":         131072,
	"gemma-3":        131072,
	// Others
	"grok-3":         131072,
	"grok-4":         256000,
	"grok-code-fast": 256000,
	"kimi-k2":        131072,
	"glm-4.5":        131072,
	"glm-4.6":        204800,
	"phi3":           131072,
	"phi4":           16384,
}

// ContextWindow returns the context window in tokens of a model, matched by
// the longest known prefix of its lower-cased name. Provider and organisation
// prefixes ("anthropic/", "meta-llama/", "openrouter/qwen/"), a "meta-"
// prefix and Amazon Bedrock's "anthropic." and "us.anthropic." are
// ignored; an unknown model gets DefaultContextWindow.
func ContextWindow(model string) int {
	name := tableName(model)
	best, window := -1, DefaultContextWindow
	for prefix, w := range contextWindows {
		if len(prefix) > best && strings.HasPrefix(name, prefix) {
			best, window = len(prefix), w
		}
	}
	return window
}

// tableName is the name the model tables are searched by: lower case,
// without provider or organisation prefixes, "meta-", or the vendor part
// of a Bedrock model ID ("us.anthropic.claude-…", "meta.llama3-…").
func tableName(model string) string {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	for _, vendor := range []string{"anthropic.", "meta.", "mistral.", "openai.", "deepseek.", "qwen."} {
		if i := strings.Index(name, vendor); i >= 0 && !strings.Contains(name[:i], "-") {
			name = name[i+len(vendor):]
			break
		}
	}
	return strings.TrimPrefix(name, "meta-")
}
