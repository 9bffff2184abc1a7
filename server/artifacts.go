package server

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
)

// artifactName is the only form an artifact name can take: nothing a client sends is ever
// joined onto a path unless it matches, so "../" and absolute paths cannot escape the directory.
var artifactName = regexp.MustCompile(`^[0-9a-f]{32}\.png$`)

// artifactStore keeps url-format images for a stated time.
type artifactStore struct {
	dir     string
	owned   bool // created here, removed on close
	ttl     time.Duration
	mu      sync.Mutex
	expires map[string]time.Time
}

func newArtifactStore(dir string, ttl time.Duration) (*artifactStore, error) {
	owned := dir == ""
	if owned {
		var err error
		if dir, err = os.MkdirTemp("", "trtmc-artifacts-"); err != nil {
			return nil, fmt.Errorf("artifact directory: %w", err)
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("artifact directory: %w", err)
	}
	return &artifactStore{dir: dir, owned: owned, ttl: ttl, expires: map[string]time.Time{}}, nil
}

func (a *artifactStore) put(data []byte) (string, time.Time, error) {
	var id [16]byte
	rand.Read(id[:])
	name := hex.EncodeToString(id[:]) + ".png"
	if err := os.WriteFile(filepath.Join(a.dir, name), data, 0o644); err != nil {
		return "", time.Time{}, fmt.Errorf("store artifact: %w", err)
	}
	exp := time.Now().Add(a.ttl)
	a.mu.Lock()
	a.expires[name] = exp
	a.mu.Unlock()
	return name, exp, nil
}

// get returns an artifact's bytes; 404 for names it never issued, 410 once expired.
func (a *artifactStore) get(name string) ([]byte, error) {
	if !artifactName.MatchString(name) {
		return nil, newError(http.StatusNotFound, contract.CodeNotFound, "no artifact %q", name)
	}
	a.mu.Lock()
	exp, ok := a.expires[name]
	if ok && time.Now().After(exp) {
		delete(a.expires, name)
		os.Remove(filepath.Join(a.dir, name))
		a.mu.Unlock()
		return nil, newError(http.StatusGone, contract.CodeArtifactExpired, "artifact %s expired at %s", name, exp.UTC().Format(time.RFC3339))
	}
	a.mu.Unlock()
	if !ok {
		return nil, newError(http.StatusNotFound, contract.CodeNotFound, "no artifact %q", name)
	}
	return os.ReadFile(filepath.Join(a.dir, name))
}

func (a *artifactStore) close() error {
	if a.owned {
		return os.RemoveAll(a.dir)
	}
	return nil
}

func (s *Server) artifact(x *exchange) (*reply, error) {
	name := strings.TrimPrefix(x.r.URL.Path, "/v1/artifacts/")
	data, err := s.artifacts.get(name)
	if err != nil {
		return nil, err
	}
	return &reply{status: http.StatusOK, raw: data, contentType: "image/png"}, nil
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
