package migration

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoad(t *testing.T) {
	ok := fstest.MapFS{
		"m/0002_more.sql": {Data: []byte("B")},
		"m/0001_init.sql": {Data: []byte("A")},
	}
	ms, err := Load(ok, "m/*.sql")
	if err != nil || len(ms) != 2 || ms[0].Version != 1 || ms[0].SQL != "A" || ms[1].Name != "0002_more.sql" {
		t.Fatalf("Load = %+v, %v", ms, err)
	}
	for name, fsys := range map[string]fstest.MapFS{
		"gap":        {"m/0001_a.sql": {}, "m/0003_c.sql": {}},
		"duplicate":  {"m/0001_a.sql": {}, "m/0001_b.sql": {}},
		"unnumbered": {"m/init.sql": {}},
	} {
		if _, err := Load(fsys, "m/*.sql"); err == nil || !strings.Contains(err.Error(), "migration") {
			t.Errorf("%s: Load = %v, want an error naming the migration", name, err)
		}
	}
}
