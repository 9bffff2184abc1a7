package server

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
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
