package cli

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/lib/eventjson"
)

// jsonlWriter encodes agent events as one JSON object per line, in the
// shape of DESIGN §4. It is the only thing that writes to stdout in --json
// mode, and it reads the same event stream the TUI does.
type jsonlWriter struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func newJSONLWriter(w io.Writer) *jsonlWriter {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &jsonlWriter{enc: enc}
}

// write encodes ev; events with no JSONL form (text deltas) are skipped.
func (j *jsonlWriter) write(ev agent.Event) error {
	obj := eventjson.Event(ev)
	if obj == nil {
		return nil
	}
	return j.writeObject(obj)
}

// writeObject encodes one line.
func (j *jsonlWriter) writeObject(obj eventjson.Object) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.enc.Encode(obj)
}
