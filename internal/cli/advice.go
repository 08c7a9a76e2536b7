package cli

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/harness9/harness9/llm"
)

// modelAdvice says what the person can do about a failed model call, ""
// when it is nothing they can fix (a 5xx the provider retried, a
// cancellation). keyEnv is the variable the provider's key comes from.
func modelAdvice(err error, keyEnv string) string {
	var perr *llm.ProviderError
	if !errors.As(err, &perr) {
		return ""
	}
	switch perr.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		key := "the provider's API key"
		if keyEnv != "" {
			key = keyEnv
		}
		return fmt.Sprintf("The provider refused the API key: check %s (is it set, current, for this provider?). "+
			"`harness9 doctor` shows the provider, the variable its key comes from and the base URL.", key)
	case http.StatusNotFound:
		return "The provider has no such model or endpoint: check the model (-m PROVIDER/MODEL) and the base URL; " +
			"`harness9 doctor` shows both."
	}
	return ""
}

// modelAdvice is modelAdvice for this wiring's current provider.
func (rt *wiring) modelAdvice(err error) string {
	rt.modelMu.Lock()
	env := rt.resolved.Provider.APIKeyEnv
	rt.modelMu.Unlock()
	return modelAdvice(err, env)
}
