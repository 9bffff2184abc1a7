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
	got, ok := bearerToken(r.Header.Get("Authorization"))
	gotSum, wantSum := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(s.cfg.APIKey))
	return subtle.ConstantTimeCompare(gotSum[:], wantSum[:]) == 1 && ok
}

// bearerToken is the credentials of a Bearer authorization: the scheme is matched without
// regard to case and is followed by one or more spaces (RFC 9110 §11.1, §11.4). The scheme
// is public; only the token is compared in constant time.
func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimLeft(token, " "), true
}
