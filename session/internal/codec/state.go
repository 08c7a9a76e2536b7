package codec

import (
	"encoding/json"
	"fmt"

	"github.com/harness9/harness9/planning/plan"
	"github.com/harness9/harness9/session"
)

// EncodeState returns st as stored.
func EncodeState(st session.State) ([]byte, error) {
	body, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("encode state: %w", err)
	}
	return body, nil
}

// DecodeState decodes a stored state; nil (none saved) is a zero State.
// Todos is never nil.
func DecodeState(body []byte) (session.State, error) {
	var st session.State
	if body != nil {
		if err := json.Unmarshal(body, &st); err != nil {
			return session.State{}, fmt.Errorf("decode state: %w", err)
		}
	}
	if st.Todos == nil {
		st.Todos = []plan.TodoItem{}
	}
	return st, nil
}
