package runfile

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// bytewiseShape is the counting rule one byte at a time, as checkShape first did it: the oracle
// the fast scanner must agree with.
func bytewiseShape(data []byte) (lines, values int) {
	values = 1
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case inString:
			inString = escaped || c != '"'
			escaped = !escaped && c == '\\'
			if c == '\n' {
				lines++
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[' || c == ',' || c == '\n':
			values++
			if c == '\n' {
				lines++
			}
		}
	}
	return lines, values
}

// scanInPieces feeds data to a shape split at the given cut points, as reads split a stream.
func scanInPieces(data []byte, cuts []int) shape {
	s := shape{values: 1}
	prev := 0
	for _, c := range cuts {
		s.scan(data[prev:c])
		prev = c
	}
	s.scan(data[prev:])
	return s
}

// TestShapeAgreesWithTheBytewiseRule draws inputs dense in the bytes the rule looks at (quotes,
// backslashes, runs of backslashes, newlines inside and outside strings, brackets, commas),
// splits each at random points, and compares the counts with the one-byte-at-a-time rule.
func TestShapeAgreesWithTheBytewiseRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("\"\\\n{[,]}: ax0")
	for n := range 20000 {
		data := make([]byte, rng.IntN(200))
		for i := range data {
			data[i] = alphabet[rng.IntN(len(alphabet))]
		}
		var cuts []int
		for c := 0; len(data) > 0 && c < rng.IntN(5); c++ {
			cuts = append(cuts, rng.IntN(len(data)+1))
		}
		slices.Sort(cuts)
		wantLines, wantValues := bytewiseShape(data)
		got := scanInPieces(data, cuts)
		if got.lines != wantLines || got.values != wantValues {
			t.Fatalf("case %d %q cut at %v: lines %d values %d, the bytewise rule %d and %d", n, data, cuts, got.lines, got.values, wantLines, wantValues)
		}
	}
}

// FuzzShape explores the same property (`go test -fuzz FuzzShape ./harness/runfile`).
func FuzzShape(f *testing.F) {
	f.Add([]byte(`{"a":"x\"y\\","b":[1,2]}`+"\n"+`"\`), uint16(7))
	f.Add([]byte("\"\\\n\\\\\"\n,"), uint16(2))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		c := int(cut) % (len(data) + 1)
		wantLines, wantValues := bytewiseShape(data)
		got := scanInPieces(data, []int{c})
		if got.lines != wantLines || got.values != wantValues {
			t.Fatalf("%q cut at %d: lines %d values %d, the bytewise rule %d and %d", data, c, got.lines, got.values, wantLines, wantValues)
		}
	})
}
