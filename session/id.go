package session

import (
	"crypto/rand"
	"encoding/hex"
)

// NewID returns a random session id of 16 lower-case hex characters, the
// one id format every store generates (Get's prefix matching and the CLI's
// short ids assume it).
func NewID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails since Go 1.24
	return hex.EncodeToString(b[:])
}
