package server

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestArtifactRemovedBeforeReadIsGone covers the sweeper deleting a file between get's expiry
// check and its read: the answer is 410 artifact_expired, not a 500.
func TestArtifactRemovedBeforeReadIsGone(t *testing.T) {
	a, err := newArtifactStore(t.TempDir(), time.Hour, artifactQuota{bytes: 1 << 20, files: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	name, _, err := a.put([]byte("png"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(a.dir, name)); err != nil {
		t.Fatal(err)
	}
	_, err = a.get(name)
	var apiErr *apiError
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusGone {
		t.Fatalf("get of a swept artifact: %v, want 410", err)
	}
}

// TestArtifactNeedsTheKeyOrAValidSignature: once a key is required, an artifact is served with
// the key or with its url's unexpired signature, never on its random name alone.
func TestArtifactNeedsTheKeyOrAValidSignature(t *testing.T) {
	s, err := New(Config{Bundles: []string{"unused"}, APIKey: "k3y", ArtifactDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.ready.Store(true)
	name, expires, err := s.artifacts.put([]byte("png"))
	if err != nil {
		t.Fatal(err)
	}
	signed := s.artifacts.signedPath(name, expires)
	past := time.Now().Add(-time.Minute)
	forged := "/v1/artifacts/" + name + "?expires=" + strconv.FormatInt(expires.Unix()+3600, 10) + "&signature=" + s.artifacts.signature(name, expires.Unix())
	cases := []struct {
		path, key string
		status    int
	}{
		{signed, "", http.StatusOK},
		{"/v1/artifacts/" + name, "k3y", http.StatusOK},
		{"/v1/artifacts/" + name, "", http.StatusUnauthorized},
		{"/v1/artifacts/" + name, "wrong", http.StatusUnauthorized},
		{signed[:len(signed)-1] + "x", "", http.StatusUnauthorized},
		{forged, "", http.StatusUnauthorized}, // a later expiry with the old signature
		{s.artifacts.signedPath(name, past), "", http.StatusGone},
	}
	for _, c := range cases {
		req := httptest.NewRequest(http.MethodGet, c.path, nil)
		if c.key != "" {
			req.Header.Set("Authorization", "Bearer "+c.key)
		}
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		if w.Code != c.status {
			t.Errorf("%s key %q: %d %s, want %d", c.path, c.key, w.Code, w.Body, c.status)
		}
	}
}
