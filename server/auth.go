package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// keyMatches compares the bearer token with the key in constant time. Both are hashed first:
// subtle.ConstantTimeCompare returns at once on a length mismatch, and comparing the fixed-size
// digests keeps the key's length from leaking too. TestKeyComparisonIsConstantTime checks that
// this function compares through crypto/subtle only.
func (s *Server) keyMatches(r *http.Request) bool {
	if s.cfg.APIKey == "" {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	gotSum, wantSum := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(s.cfg.APIKey))
	return subtle.ConstantTimeCompare(gotSum[:], wantSum[:]) == 1 && ok
}
