package eval

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
)

// TaskScriptModel is the model that plays each task's own script (a
// scripted.File): script.<mode>.json in the task directory, else
// script.json. It needs no key and no network, and makes a suite's
// harness — fixtures, setup, check, records — testable on its own.
const TaskScriptModel = "scripted/task"

// TaskScript loads the script of task t for mode m.
func TaskScript(t *Task, m Mode) (llm.Provider, error) {
	for _, name := range []string{"script." + string(m) + ".json", "script.json"} {
		path := filepath.Join(t.Dir, name)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		return scripted.LoadFile(path)
	}
	return nil, fmt.Errorf("task %s has no script.%s.json or script.json for the model %s", t.Name, m, TaskScriptModel)
}
