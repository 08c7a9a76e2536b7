package config

import (
	"fmt"
	"strings"
)

// StoreSQLite names the default store: the SQLite file in the data
// directory.
const StoreSQLite = "sqlite"

// StorePostgres reports whether store is a PostgreSQL URL.
func StorePostgres(store string) bool {
	return strings.HasPrefix(store, "postgres://") || strings.HasPrefix(store, "postgresql://")
}

// parseStore checks a store setting and returns it as Config.Store holds
// it ("" for SQLite). An unknown value is not echoed whole: it may be a
// mistyped URL carrying a password.
func parseStore(v string) (string, error) {
	switch {
	case v == StoreSQLite:
		return "", nil
	case StorePostgres(v):
		return v, nil
	}
	kind, _, _ := strings.Cut(v, ":")
	if len(kind) > 20 {
		kind = kind[:20] + "…"
	}
	return "", fmt.Errorf("%q… is not a session store: use %q (the database file in the data directory, the default) or a postgres://USER@HOST/DB URL", kind, StoreSQLite)
}
