package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
