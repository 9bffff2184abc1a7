package metrics

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// jiwerCases pin the unit-cost mode. Expected H/S/D/I are jiwer 4.0.0's process_words output
// (its documented examples plus hand-checked tie cases); the live parity test re-checks jiwer.
var jiwerCases = []struct {
	ref, hyp   string
	h, s, d, i int
}{
	{"hello world", "hello duck", 1, 1, 0, 0},             // jiwer README example
	{"i like python", "i like monthy python", 3, 0, 0, 1}, // insertion
	{"the cat sat on the mat", "the cat sat on mat", 5, 0, 1, 0},
	{"a b", "b c", 0, 2, 0, 0}, // tie: two substitutions beat delete+insert
	{"a b c d", "", 0, 0, 4, 0},
	{"x y z w", "y z w x", 3, 0, 1, 1},
	{"one two three", "one two three", 3, 0, 0, 0},
	{"a a a", "a", 1, 0, 2, 0},
}

func TestAlignWordsUnitCostsMatchesJiwerTable(t *testing.T) {
	for _, c := range jiwerCases {
		got := AlignWords(strings.Fields(c.ref), strings.Fields(c.hyp), UnitCosts())
		want := Counts{Hits: c.h, Subs: c.s, Dels: c.d, Ins: c.i}
		if got != want {
			t.Errorf("AlignWords(%q, %q) = %+v, want %+v", c.ref, c.hyp, got, want)
		}
	}
}

func TestSCLITECostsPreferDeleteInsertOverTwoSubs(t *testing.T) {
	// Under 4/3/3 weights, "a b c" → "b c d" is D+I (cost 6), not three substitutions (12).
	got := AlignWords([]string{"a", "b", "c"}, []string{"b", "c", "d"}, SCLITECosts())
	if want := (Counts{Hits: 2, Dels: 1, Ins: 1}); got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestCorpusWERIsSummedNotAveraged(t *testing.T) {
	pairs := []Pair{
		{ID: "long", Expected: "a b c d e f g h i j", Hyp: "a b c d e f g h i j"},
		{ID: "short", Expected: "k", Hyp: "z"},
	}
	s := Score(pairs, Identity(), UnitCosts())
	wer, err := s.WER()
	if err != nil {
		t.Fatal(err)
	}
	if want := 1.0 / 11.0; math.Abs(wer-want) > 1e-15 {
		t.Fatalf("corpus WER = %v, want %v (mean of rates would be 0.5)", wer, want)
	}
}

func TestEmptyReferenceRule(t *testing.T) {
	both := Score([]Pair{{Expected: "", Hyp: ""}}, Identity(), UnitCosts())
	if wer, err := both.WER(); err != nil || wer != 0 {
		t.Errorf("empty vs empty: WER=%v err=%v, want 0 <nil>", wer, err)
	}
	ins := Score([]Pair{{Expected: "", Hyp: "spurious words"}}, Identity(), UnitCosts())
	if _, err := ins.WER(); !errors.Is(err, ErrEmptyReference) {
		t.Errorf("empty reference with insertions: err=%v, want ErrEmptyReference", err)
	}
	if _, err := ins.CER(); !errors.Is(err, ErrEmptyReference) {
		t.Errorf("empty reference CER: err=%v, want ErrEmptyReference", err)
	}
	// An empty reference inside a non-empty corpus contributes its insertions only.
	mixed := Score([]Pair{{Expected: "", Hyp: "x"}, {Expected: "a b", Hyp: "a b"}}, Identity(), UnitCosts())
	if wer, err := mixed.WER(); err != nil || wer != 0.5 {
		t.Errorf("mixed corpus: WER=%v err=%v, want 0.5", wer, err)
	}
}

func TestCERAndNED(t *testing.T) {
	u := ScoreUtterance(Pair{Expected: "Hello World", Hyp: "hello word"}, TRTMCFamily(), UnitCosts())
	if u.CharDistance != 1 || u.RefChars != 11 {
		t.Fatalf("char distance %d over %d, want 1 over 11", u.CharDistance, u.RefChars)
	}
	if want := 1.0 / 11.0; math.Abs(u.NED-want) > 1e-15 {
		t.Errorf("NED = %v, want %v", u.NED, want)
	}
	cases := []struct {
		a, b string
		want float64
	}{
		{"", "", 0}, {"abc", "", 1}, {"", "ab", 1}, {"abc", "abc", 0}, {"kitten", "sitting", 3.0 / 7.0},
		{"日本語", "日本", 1.0 / 3.0}, // runes, not bytes
	}
	for _, c := range cases {
		if got := NED(c.a, c.b); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("NED(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestMaxNEDIsTheWorstUtterance(t *testing.T) {
	s := Score([]Pair{{Expected: "same", Hyp: "same"}, {Expected: "abcd", Hyp: "abcx"}}, Identity(), UnitCosts())
	if s.MaxNED() != 0.25 {
		t.Fatalf("MaxNED = %v, want 0.25", s.MaxNED())
	}
}
