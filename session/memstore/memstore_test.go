package memstore_test

import (
	"testing"

	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/memstore"
	"github.com/harness9/harness9/session/storetest"
)

func TestStore(t *testing.T) {
	storetest.Run(t, func(*testing.T) session.Store { return memstore.New() })
}
