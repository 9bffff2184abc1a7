package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
)

func golden(parts ...string) string {
	return filepath.Join(append([]string{"..", "..", "golden"}, parts...)...)
}

// Every pinned clip materializes to the WAV whose sha256 is pinned.
func TestPinnedASRSetsMaterialize(t *testing.T) {
	paths, _ := filepath.Glob(golden("asr", "*", "dataset.json"))
	if len(paths) == 0 {
		t.Fatal("no ASR dataset pins")
	}
	for _, p := range paths {
		set, err := ReadASR(p)
		if err != nil {
			t.Fatal(err)
		}
		clips, err := set.Materialize(filepath.Join("..", ".."), t.TempDir())
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if len(clips) != len(set.Clips) || clips[0].Path == "" {
			t.Errorf("%s: %d of %d clips", p, len(clips), len(set.Clips))
		}
	}
}

// A changed pin is caught: the materialized WAV no longer matches its sha256.
func TestMaterializeRefusesAChangedPin(t *testing.T) {
	paths, _ := filepath.Glob(golden("asr", "*", "dataset.json"))
	set, err := ReadASR(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	set.Clips = set.Clips[:1]
	set.Clips[0].SHA256 = strings.Repeat("0", 64)
	if _, err := set.Materialize(filepath.Join("..", ".."), t.TempDir()); err == nil || !strings.Contains(err.Error(), "pinned") {
		t.Errorf("changed pin: %v", err)
	}
}

// The general-English selection is the six LibriVox/goforward clips followed by the three
// LibriSpeech clips, each included file checked against its pinned sha256.
func TestIncludedSetsArePinned(t *testing.T) {
	set, err := ReadASR(golden("asr", "general-english", "dataset.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range set.Clips {
		ids = append(ids, c.ID)
	}
	if len(ids) != 9 || ids[0] != "sense_and_sensibility_01_austen_64kb-0870" || ids[5] != "goforward" ||
		strings.Join(ids[6:], ",") != "61-70968-0000,6930-75918-0000,7902-96591-0000" {
		t.Fatalf("clips %v", ids)
	}
	if g := set.Groups(); g["7902-96591-0000"] != "librispeech-speaker:7902" || set.Clips[8].Origin == nil || set.Clips[8].Origin.Split != "test-other" {
		t.Errorf("LibriSpeech clip: group %q origin %+v", g["7902-96591-0000"], set.Clips[8].Origin)
	}
	dir := t.TempDir()
	data, err := os.ReadFile(golden("asr", "librispeech-sel", "dataset.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "inc.json"), append(data, ' '), 0o644) // one byte more than pinned
	top := `{"name":"t","include":[{"path":"inc.json","sha256":"` + sha256Hex(data) + `"}],"clips":[]}`
	os.WriteFile(filepath.Join(dir, "top.json"), []byte(top), 0o644)
	if _, err := ReadASR(filepath.Join(dir, "top.json")); err == nil || !strings.Contains(err.Error(), "pinned") {
		t.Errorf("a changed included file was read: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "inc.json"), data, 0o644)
	dup := `{"name":"t","include":[{"path":"inc.json","sha256":"` + sha256Hex(data) + `"}],"clips":[{"id":"6930-75918-0000"}]}`
	os.WriteFile(filepath.Join(dir, "top.json"), []byte(dup), 0o644)
	if _, err := ReadASR(filepath.Join(dir, "top.json")); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a clip id repeated across includes was read: %v", err)
	}
}

// A cache source resolves under the cache the caller passes, else under ~/.cache/trtmc-qual;
// the environment (QUAL_CACHE) is not read here: harness/config reads it and passes it down.
func TestCacheSourceResolvesUnderGivenCache(t *testing.T) {
	t.Setenv("QUAL_CACHE", "/tmp/from-env")
	t.Setenv("HOME", "/tmp/home")
	if got := sourcePath(CacheSource+"librispeech-sel/wav/a.wav", "/tmp/qc"); got != "/tmp/qc/librispeech-sel/wav/a.wav" {
		t.Errorf("cache source with a cache: %s", got)
	}
	if got := sourcePath(CacheSource+"librispeech-sel/wav/a.wav", ""); got != "/tmp/home/.cache/trtmc-qual/librispeech-sel/wav/a.wav" {
		t.Errorf("cache source without one: %s, want the default under $HOME", got)
	}
	if got := sourcePath("/usr/share/x.wav", "/tmp/qc"); got != "/usr/share/x.wav" {
		t.Errorf("package source: %s", got)
	}
}

// Materialize reads a cache-sourced clip from the set's Cache.
func TestMaterializeReadsTheSetsCache(t *testing.T) {
	t.Setenv("HOME", t.TempDir()) // the default cache holds no such clip
	cache := t.TempDir()
	raw := []byte{1, 0, 2, 0, 0xff, 0xff}
	if err := os.WriteFile(filepath.Join(cache, "a.raw"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	wav := audio.EncodePCM16([]int16{1, 2, -1}, 1, 16000)
	set := ASRSet{Name: "t", Clips: []ASRClip{{ID: "a", Source: CacheSource + "a.raw", SourceSHA256: sha256Hex(raw),
		SourceFormat: "raw-s16le", SampleRate: 16000, SHA256: sha256Hex(wav)}}}
	if _, err := set.Materialize(t.TempDir(), t.TempDir()); err == nil {
		t.Fatal("a cache-sourced clip was found without the set's cache")
	}
	set.Cache = cache
	got, err := set.Materialize(t.TempDir(), t.TempDir())
	if err != nil || len(got) != 1 {
		t.Fatalf("materialize from the set's cache: %v %v", got, err)
	}
}

func TestPromptsRefuseDuplicatesAndBlanks(t *testing.T) {
	if ps, err := ReadPrompts(golden("t2i", "prompts.jsonl")); err != nil || len(ps) == 0 {
		t.Fatalf("pinned prompts: %d %v", len(ps), err)
	}
	for name, body := range map[string]string{
		"duplicate id": `{"id":"a","prompt":"x"}` + "\n" + `{"id":"a","prompt":"y"}`,
		"blank prompt": `{"id":"a","prompt":""}`,
		"not json":     `{"id":`,
	} {
		path := filepath.Join(t.TempDir(), "p.jsonl")
		os.WriteFile(path, []byte(body), 0o644)
		if _, err := ReadPrompts(path); err == nil || !strings.Contains(err.Error(), "p.jsonl:") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The pinned groups are what the data says: the five LibriVox clips are segments of one recording
// (one reader); goforward.raw and the cards recordings name no speaker, so they have no group.
func TestPinnedGroups(t *testing.T) {
	enUS, err := Groups(golden("asr", "sphinx-en-us", "dataset.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(enUS) != 5 || enUS["goforward"] != "" {
		t.Errorf("en-us groups %v", enUS)
	}
	for id, g := range enUS {
		if !strings.HasPrefix(id, "sense_and_sensibility_01_austen_64kb-") || g != "librivox:sense_and_sensibility_01_austen_64kb" {
			t.Errorf("clip %s in group %q", id, g)
		}
	}
	if an4, err := Groups(golden("asr", "sphinx-an4-l0", "dataset.json")); err != nil || len(an4) != 0 {
		t.Errorf("an4 groups %v %v", an4, err)
	}
	if none, err := Groups(golden("t2i", "prompts.jsonl")); err != nil || none != nil {
		t.Errorf("a JSONL pin declares no groups: %v %v", none, err)
	}
}
