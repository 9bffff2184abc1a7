package reader

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
)

var update = flag.Bool("update", false, "rewrite golden/audioqa/sphinxqa-*.jsonl from the gold transcripts")

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "..")
}

func TestParseAcceptsOnlyTheDeclaredForms(t *testing.T) {
	accepted := map[string]Question{
		"How many words are spoken?":              {Kind: WordCount},
		"  how   MANY words are spoken":           {Kind: WordCount},
		"How many digits are spoken?":             {Kind: DigitCount},
		"What is the first word?":                 {Kind: FirstWord},
		"What is the last word?":                  {Kind: LastWord},
		"Is the word forward spoken?":             {Kind: WordSpoken, Word: "forward"},
		`Is the word "don't" spoken?`:             {Kind: WordSpoken, Word: "don't"},
		"Which digits are spoken?":                {Kind: Digits},
		"What is the sum of the digits spoken?":   {Kind: DigitSum},
		"what is the sum of the digits spoken ? ": {Kind: DigitSum},
	}
	for text, want := range accepted {
		got, err := Parse(text)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", text, got, err, want)
		}
	}
	refused := map[string]string{
		"":      CodeEmptyQuestion,
		"  ?  ": CodeEmptyQuestion,
		"How far does the speaker say to go forward?": CodeUnsupportedQuestion,
		"Who is described in the clip?":               CodeUnsupportedQuestion,
		"How many words are spoken? And digits?":      CodeUnsupportedQuestion,
		"Is the word two words spoken?":               CodeUnsupportedQuestion,
		"how many words are spoken??":                 CodeUnsupportedQuestion,
		"Transcribe the clip.":                        CodeUnsupportedQuestion,
	}
	for text, code := range refused {
		_, err := Parse(text)
		if got := audio.CodeOf(err); got != code {
			t.Errorf("Parse(%q): code %q (err %v), want %q", text, got, err, code)
		}
	}
}

func TestCanonicalTextParsesBack(t *testing.T) {
	for _, f := range Forms() {
		q := Question{Kind: f.Kind}
		if f.Kind == WordSpoken {
			q.Word = "ten"
		}
		if got, err := Parse(q.Text()); err != nil || got != q {
			t.Errorf("%s: Parse(%q) = %+v, %v", f.Kind, q.Text(), got, err)
		}
	}
}

func TestAnswers(t *testing.T) {
	cases := []struct {
		q          Question
		transcript string
		want       string
	}{
		{Question{Kind: WordCount}, "go forward ten meters", "4"},
		{Question{Kind: WordCount}, "", "0"},
		{Question{Kind: DigitCount}, "two nine three four zero", "5"},
		{Question{Kind: DigitCount}, "go forward ten meters", "0"},
		{Question{Kind: FirstWord}, "Go, forward ten meters.", "go"},
		{Question{Kind: LastWord}, "Go, forward ten meters.", "meters"},
		{Question{Kind: LastWord}, "", "none"},
		{Question{Kind: WordSpoken, Word: "ten"}, "go forward ten meters", "yes"},
		{Question{Kind: WordSpoken, Word: "tent"}, "go forward ten meters", "no"},
		{Question{Kind: Digits}, "oh seven three", "0 7 3"},
		{Question{Kind: Digits}, "ten of spades", "none"},
		{Question{Kind: DigitSum}, "six two eight five one", "22"},
		{Question{Kind: DigitSum}, "", "0"},
	}
	for _, c := range cases {
		got := Answer(c.q, c.transcript)
		if got != c.want {
			t.Errorf("%+v over %q = %q, want %q", c.q, c.transcript, got, c.want)
		}
		if err := CheckType(c.q.Text(), got); err != nil {
			t.Errorf("answer of the wrong type: %v", err)
		}
	}
}

func TestCheckTypeRefusesAnswersOfAnotherKind(t *testing.T) {
	wrong := map[string]string{
		"How many words are spoken?":            "four",
		"What is the first word?":               "go forward",
		"Is the word ten spoken?":               "maybe",
		"Which digits are spoken?":              "7,3",
		"What is the sum of the digits spoken?": "",
		"How many digits are spoken?":           "-1",
	}
	for q, a := range wrong {
		if err := CheckType(q, a); err == nil {
			t.Errorf("CheckType(%q, %q) accepted", q, a)
		}
	}
	if err := CheckType("Who is described?", "a young man"); audio.CodeOf(err) != CodeUnsupportedQuestion {
		t.Errorf("CheckType on an undeclared question: %v", err)
	}
}

// pinnedSets maps each pinned pairs file to the ASR dataset whose gold transcripts it is
// computed from.
func pinnedSets() map[string]string {
	return map[string]string{
		"golden/audioqa/sphinxqa-en-us.jsonl":  "golden/asr/sphinx-en-us/dataset.json",
		"golden/audioqa/sphinxqa-an4-l0.jsonl": "golden/asr/sphinx-an4-l0/dataset.json",
	}
}

// TestPinnedPairsRegenerateFromGold recomputes every pinned pair's gold answer from the human
// gold transcripts; `go test ./native/families/sphinxqa/reader -run Pinned -update` rewrites them.
func TestPinnedPairsRegenerateFromGold(t *testing.T) {
	for pairsPath, setPath := range pinnedSets() {
		set, err := dataset.ReadASR(filepath.Join(repoRoot(), setPath))
		if err != nil {
			t.Fatal(err)
		}
		want, err := Marshal(Generate(setPath, set))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(repoRoot(), pairsPath)
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the pairs regenerated from %s (rerun with -update after checking why)", pairsPath, setPath)
		}
		pairs, err := ReadPairs(path)
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[Kind]bool{}
		for _, p := range pairs {
			kinds[p.Kind] = true
		}
		if len(kinds) != len(Forms()) {
			t.Errorf("%s covers %d of the %d declared forms", pairsPath, len(kinds), len(Forms()))
		}
	}
}

func TestReadPairsRefusesAPairWhoseQuestionIsNotItsKind(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.jsonl")
	os.WriteFile(path, []byte(`{"id":"x","dataset":"d","clip":"c","question":"How many words are spoken?","kind":"digit_count","answer":"1"}`+"\n"), 0o644)
	if _, err := ReadPairs(path); err == nil {
		t.Fatal("a pair whose question parses to another kind was accepted")
	}
}
