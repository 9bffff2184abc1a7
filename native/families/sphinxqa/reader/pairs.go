package reader

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/native/dataset"
)

// Pair is one pinned templated question about one clip of a pinned ASR dataset, with its gold
// answer: the reader applied to the clip's human gold transcript.
type Pair struct {
	ID       string `json:"id"`
	Dataset  string `json:"dataset"` // repo-relative ASR dataset pin
	Clip     string `json:"clip"`
	Question string `json:"question"`
	Kind     Kind   `json:"kind"`
	Answer   string `json:"answer"` // gold answer, from the gold transcript
}

// absentWords are candidates for "is the word X spoken?" questions whose gold answer is "no":
// the first one not in a clip's gold text is asked.
func absentWords() []string { return []string{"elephant", "purple", "river", "window"} }

// Generate derives the pinned pairs for every clip of an ASR dataset from its gold transcripts.
// Every clip costs one recognizer decode per question in the gate, so each clip gets four
// questions, rotating through the declared forms by clip position so that the set covers every
// form: the word count; the first word (even positions) or the last word (odd); whether a gold
// word (even) or a word not spoken (odd) is spoken; and one digit form (count, list, sum in
// turn). datasetPath is recorded as given (repo-relative).
func Generate(datasetPath string, set dataset.ASRSet) []Pair {
	var out []Pair
	for i, c := range set.Clips {
		words := Words(c.Gold)
		qs := []Question{{Kind: WordCount}, {Kind: []Kind{FirstWord, LastWord}[i%2]}}
		if i%2 == 0 {
			qs = append(qs, Question{Kind: WordSpoken, Word: longest(words)})
		} else {
			qs = append(qs, Question{Kind: WordSpoken, Word: absent(words)})
		}
		qs = append(qs, Question{Kind: []Kind{DigitCount, Digits, DigitSum}[i%3]})
		for _, q := range qs {
			id := c.ID + "-" + string(q.Kind)
			if q.Word != "" {
				id += "-" + q.Word
			}
			out = append(out, Pair{ID: id, Dataset: datasetPath, Clip: c.ID, Question: q.Text(), Kind: q.Kind, Answer: Answer(q, c.Gold)})
		}
	}
	return out
}

// absent is the first candidate word the gold text does not contain.
func absent(words []string) string {
	for _, w := range absentWords() {
		if !contains(words, w) {
			return w
		}
	}
	return absentWords()[0]
}

// longest is the first longest word: a content word the recognizer may or may not get right.
func longest(words []string) string {
	best := ""
	for _, w := range words {
		if len(w) > len(best) {
			best = w
		}
	}
	return best
}

func contains(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}

// Marshal writes pairs as JSONL, one pair a line.
func Marshal(pairs []Pair) ([]byte, error) {
	var b bytes.Buffer
	for _, p := range pairs {
		line, err := json.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("marshal pair %s: %w", p.ID, err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// ReadPairs reads a JSONL pairs file; every pair must be of a declared form and its question
// must parse to its recorded kind.
func ReadPairs(path string) ([]Pair, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read QA pairs: %w", err)
	}
	var out []Pair
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var p Pair
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		q, err := Parse(p.Question)
		if err != nil || q.Kind != p.Kind {
			return nil, fmt.Errorf("%s line %d: question %q does not parse to kind %s (%v)", path, n, p.Question, p.Kind, err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no pairs", path)
	}
	return out, nil
}
