package llm

import "strings"

// visionModels lists lower-case model-name prefixes and whether the model
// accepts images. The longest matching prefix wins, as in ContextWindow. A
// model the table does not know is assumed to be text-only: sending it an
// image would fail at the provider with a less helpful message, and a
// config setting (vision = true) can say otherwise.
var visionModels = map[string]bool{
	// OpenAI
	"gpt-4o": true, "chatgpt-4o": true, "gpt-4.1": true, "gpt-4.5": true, "gpt-4-turbo": true,
	"gpt-5": true, "o1": true, "o1-mini": false, "o1-preview": false, "o3": true, "o3-mini": false,
	"o4-mini": true, "gpt-3.5": false, "gpt-4": false, "gpt-oss": false, "codex-mini": true,
	// Anthropic: every claude-3 and later model; claude-2 and instant do not.
	"claude": true, "claude-2": false, "claude-instant": false,
	// Google
	"gemini": true, "gemma3": true, "gemma-3": true,
	// Open models with vision variants
	"llama3.2-vision": true, "llama-3.2-vision": true, "llama4": true, "llama-4": true,
	"qwen2.5-vl": true, "qwen2-vl": true, "qwen-vl": true, "llava": true, "minicpm-v": true,
	"mistral-small3.1": true, "pixtral": true, "grok-4": true, "grok-2-vision": true,
}

// SupportsVision reports whether a model accepts images, by the longest
// known prefix of its lower-cased name (provider prefixes ignored, as in
// ContextWindow). Unknown models are assumed text-only.
func SupportsVision(model string) bool {
	name := tableName(model)
	best, ok := -1, false
	for prefix, v := range visionModels {
		if len(prefix) > best && strings.HasPrefix(name, prefix) {
			best, ok = len(prefix), v
		}
	}
	return ok
}
