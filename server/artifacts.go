package server

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
)

// artifactName is the only form an artifact name can take: nothing a client sends is ever
// joined onto a path unless it matches, so "../" and absolute paths cannot escape the directory.
var artifactName = regexp.MustCompile(`^[0-9a-f]{32}\.png$`)

// artifactStore keeps url-format images for a stated time. A sweeper deletes each file once it
// has expired, whether or not anyone asks for it again; the directory itself is removed on close
// only when the store created it (a private temp dir), never a directory the operator named.
type artifactStore struct {
	dir     string
	owned   bool // created here, removed on close
	ttl     time.Duration
	quota   artifactQuota
	mu      sync.Mutex
	expires map[string]time.Time
	removed map[string]bool  // expired names whose file is already deleted
	sizes   map[string]int64 // bytes of every file still on disk
	bytes   int64            // their sum
	stop    chan struct{}
	swept   chan struct{} // closed when the sweeper has returned
	signKey [32]byte      // per process: a restart invalidates every url it signed
}

// artifactQuota bounds what the store keeps on disk at once; a url image past it is refused
// (507 artifact_quota_exceeded, recorded) rather than evicting an artifact whose url was given.
type artifactQuota struct {
	bytes int64
	files int
}

// Default quota: 1 GiB and 10,000 files, about an hour of url images at ~3 images/s.
const (
	DefaultArtifactMaxBytes = 1 << 30
	DefaultArtifactMaxFiles = 10_000
)

func newArtifactStore(dir string, ttl time.Duration, quota artifactQuota) (*artifactStore, error) {
	owned := dir == ""
	if owned {
		var err error
		if dir, err = os.MkdirTemp("", "trtmc-artifacts-"); err != nil {
			return nil, fmt.Errorf("artifact directory: %w", err)
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("artifact directory: %w", err)
	}
	a := &artifactStore{dir: dir, owned: owned, ttl: ttl, quota: quota, expires: map[string]time.Time{},
		removed: map[string]bool{}, sizes: map[string]int64{}, stop: make(chan struct{}), swept: make(chan struct{})}
	rand.Read(a.signKey[:])
	go a.sweep(sweepInterval(ttl))
	return a, nil
}

// sweepInterval checks often enough that a file outlives its expiry by at most about a tenth
// of its TTL (at least 50 ms, at most 30 s apart).
func sweepInterval(ttl time.Duration) time.Duration {
	return min(max(ttl/10, 50*time.Millisecond), 30*time.Second)
}

func (a *artifactStore) sweep(every time.Duration) {
	defer close(a.swept)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-a.stop:
			return
		case now := <-tick.C:
			a.removeExpired(now)
		}
	}
}

// removeExpired deletes the file of every artifact whose time is up. Its name is kept for one
// more TTL, so that a late fetch is told 410 artifact_expired rather than 404, then forgotten:
// memory stays bounded by what was issued within two TTLs.
func (a *artifactStore) removeExpired(now time.Time) {
	a.mu.Lock()
	var gone []string
	for name, exp := range a.expires {
		if now.After(exp) && !a.removed[name] {
			a.markRemoved(name)
			gone = append(gone, name)
		}
		if now.After(exp.Add(a.ttl)) {
			delete(a.expires, name)
			delete(a.removed, name)
		}
	}
	a.mu.Unlock()
	for _, name := range gone {
		os.Remove(filepath.Join(a.dir, name))
	}
}

// markRemoved forgets an expired file's bytes; call with a.mu held.
func (a *artifactStore) markRemoved(name string) {
	a.removed[name] = true
	a.bytes -= a.sizes[name]
	delete(a.sizes, name)
}

func (a *artifactStore) put(data []byte) (string, time.Time, error) {
	var id [16]byte
	rand.Read(id[:])
	name := hex.EncodeToString(id[:]) + ".png"
	size := int64(len(data))
	a.mu.Lock()
	if len(a.sizes)+1 > a.quota.files || a.bytes+size > a.quota.bytes {
		files, bytes := len(a.sizes), a.bytes
		a.mu.Unlock()
		return "", time.Time{}, newError(http.StatusInsufficientStorage, contract.CodeArtifactQuota,
			"url artifacts are at their quota (%d files, %d bytes kept; at most %d files, %d bytes): ask for b64_json, or retry once some expire", files, bytes, a.quota.files, a.quota.bytes)
	}
	a.sizes[name] = size // reserved before the write, so concurrent puts cannot overshoot
	a.bytes += size
	a.mu.Unlock()
	if err := os.WriteFile(filepath.Join(a.dir, name), data, 0o644); err != nil {
		os.Remove(filepath.Join(a.dir, name))
		a.mu.Lock()
		a.bytes -= size
		delete(a.sizes, name)
		a.mu.Unlock()
		return "", time.Time{}, fmt.Errorf("store artifact: %w", err)
	}
	exp := time.Now().Add(a.ttl)
	a.mu.Lock()
	a.expires[name] = exp
	a.mu.Unlock()
	return name, exp, nil
}

// discard deletes artifacts whose urls were never given out (their answer failed part-way),
// so that they do not hold the quota for their TTL.
func (a *artifactStore) discard(names []string) {
	for _, name := range names {
		a.mu.Lock()
		a.bytes -= a.sizes[name]
		delete(a.sizes, name)
		delete(a.expires, name)
		a.mu.Unlock()
		os.Remove(filepath.Join(a.dir, name))
	}
}

// get returns an artifact's bytes; 404 for names it never issued, 410 once expired.
func (a *artifactStore) get(name string) ([]byte, error) {
	if !artifactName.MatchString(name) {
		return nil, newError(http.StatusNotFound, contract.CodeNotFound, "no artifact %q", name)
	}
	a.mu.Lock()
	exp, ok := a.expires[name]
	if ok && time.Now().After(exp) {
		if !a.removed[name] {
			a.markRemoved(name)
			os.Remove(filepath.Join(a.dir, name))
		}
		a.mu.Unlock()
		return nil, newError(http.StatusGone, contract.CodeArtifactExpired, "artifact %s expired at %s", name, exp.UTC().Format(time.RFC3339))
	}
	a.mu.Unlock()
	if !ok {
		return nil, newError(http.StatusNotFound, contract.CodeNotFound, "no artifact %q", name)
	}
	data, err := os.ReadFile(filepath.Join(a.dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		// The sweeper removed it between the expiry check and the read: it expired.
		return nil, newError(http.StatusGone, contract.CodeArtifactExpired, "artifact %s expired at %s", name, exp.UTC().Format(time.RFC3339))
	}
	return data, err
}

// close stops the sweeper and removes the directory when it is the store's own temp dir. In a
// directory the operator named, files not yet expired are left for the operator.
func (a *artifactStore) close() error {
	select {
	case <-a.stop:
		return nil // already closed
	default:
		close(a.stop)
	}
	<-a.swept
	if a.owned {
		return os.RemoveAll(a.dir)
	}
	return nil
}

// signature is the hex HMAC-SHA256, under the store's key, of an artifact's name and expiry.
func (a *artifactStore) signature(name string, expires int64) string {
	mac := hmac.New(sha256.New, a.signKey[:])
	fmt.Fprintf(mac, "%s\n%d", name, expires)
	return hex.EncodeToString(mac.Sum(nil))
}

// signedPath is an artifact's path with its expiry and signature: a pre-signed url, usable
// without the API key (an <img> or a plain download cannot send one) until it expires.
func (a *artifactStore) signedPath(name string, expires time.Time) string {
	q := url.Values{"expires": {strconv.FormatInt(expires.Unix(), 10)}, "signature": {a.signature(name, expires.Unix())}}
	return "/v1/artifacts/" + name + "?" + q.Encode()
}

// authorizeArtifact lets a fetch through with the API key (or when none is required), or with
// a signature that matches the name and expiry and has not expired. The random name alone is
// not enough once a key is required: a leaked name then needs its signature too.
func (s *Server) authorizeArtifact(r *http.Request, name string) error {
	if s.keyMatches(r) {
		return nil
	}
	q := r.URL.Query()
	expires, err := strconv.ParseInt(q.Get("expires"), 10, 64)
	want := s.artifacts.signature(name, expires)
	if err != nil || !hmac.Equal([]byte(q.Get("signature")), []byte(want)) {
		return newError(http.StatusUnauthorized, contract.CodeUnauthorized, "missing or wrong API key, and no valid url signature")
	}
	if time.Now().Unix() > expires {
		return newError(http.StatusGone, contract.CodeArtifactExpired, "artifact %s expired at %s", name, time.Unix(expires, 0).UTC().Format(time.RFC3339))
	}
	return nil
}

func (s *Server) artifact(x *exchange) (*reply, error) {
	name := strings.TrimPrefix(x.r.URL.Path, "/v1/artifacts/")
	if err := s.authorizeArtifact(x.r, name); err != nil {
		return nil, err
	}
	data, err := s.artifacts.get(name)
	if err != nil {
		return nil, err
	}
	return &reply{status: http.StatusOK, raw: data, contentType: "image/png"}, nil
}
