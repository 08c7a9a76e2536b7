package llm

// Price is what a model costs, in US dollars per million tokens. harness9
// knows no prices of its own (they change); programs configure them.
type Price struct {
	Input  float64 `json:"input" toml:"input"`
	Output float64 `json:"output" toml:"output"`
	// CacheRead and CacheWrite price input tokens read from or written to
	// the provider's prompt cache; zero means they cost Input.
	CacheRead  float64 `json:"cache_read,omitempty" toml:"cache_read"`
	CacheWrite float64 `json:"cache_write,omitempty" toml:"cache_write"`
}

// Cost is what a call that used u costs at p, in US dollars. Usage counts
// cached tokens within InputTokens; they are priced at CacheRead and
// CacheWrite when those are set.
func (p Price) Cost(u Usage) float64 {
	read, write := p.CacheRead, p.CacheWrite
	if read == 0 {
		read = p.Input
	}
	if write == 0 {
		write = p.Input
	}
	plain := u.InputTokens - u.CacheReadTokens - u.CacheWriteTokens
	if plain < 0 {
		plain = 0
	}
	return (float64(plain)*p.Input + float64(u.CacheReadTokens)*read + float64(u.CacheWriteTokens)*write +
		float64(u.OutputTokens)*p.Output) / 1e6
}
