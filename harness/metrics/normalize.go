// Package metrics holds the text and image metrics every gate in the suite is built on:
// normalizers, word alignment (WER with S/D/I), CER, NED, MSE/PSNR/SSIM and pixel statistics.
// Each metric is checked for parity against the tool the field trusts (NIST sclite, jiwer,
// scikit-image) in this package's tests.
package metrics

import (
	"strings"
	"unicode"

	"golang.org/x/text/cases"
)

// Normalizer turns a transcript into the token sequence a metric compares. Normalizers are
// named and versioned: a gate records the name it used, and a behaviour change gets a new name.
type Normalizer struct {
	Name  string
	apply func(string) []string
}

// Tokens returns the normalized words of s.
func (n Normalizer) Tokens(s string) []string { return n.apply(s) }

// Text returns the normalized words of s joined by single spaces.
func (n Normalizer) Text(s string) string { return strings.Join(n.apply(s), " ") }

// TRTMCFamily is the TRTMC family contract (trtmc-family-v1): casefold, strip punctuation at
// word edges only ("don't" and "3.5" keep their inner marks), collapse whitespace.
func TRTMCFamily() Normalizer { return Normalizer{Name: "trtmc-family-v1", apply: trtmcFamily} }

// GoldWER is the normalizer for WER against human gold text (gold-wer-v1): lowercase, remove
// every punctuation character except the apostrophe, collapse whitespace.
func GoldWER() Normalizer { return Normalizer{Name: "gold-wer-v1", apply: goldWER} }

// Identity splits on whitespace and changes nothing else (identity-v1): what sclite does with
// no normalization options.
func Identity() Normalizer { return Normalizer{Name: "identity-v1", apply: strings.Fields} }

// NormalizerByName finds a normalizer by its versioned name.
func NormalizerByName(name string) (Normalizer, bool) {
	for _, n := range []Normalizer{TRTMCFamily(), GoldWER(), Identity()} {
		if n.Name == name {
			return n, true
		}
	}
	return Normalizer{}, false
}

func isPunct(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) }

func trtmcFamily(s string) []string {
	folded := cases.Fold().String(s)
	var out []string
	for _, w := range strings.Fields(folded) {
		if w = strings.TrimFunc(w, isPunct); w != "" {
			out = append(out, w)
		}
	}
	return out
}

func goldWER(s string) []string {
	lower := strings.ToLower(s)
	stripped := strings.Map(func(r rune) rune {
		if r == '\'' || r == '’' {
			return '\''
		}
		if isPunct(r) {
			return -1
		}
		return r
	}, lower)
	return strings.Fields(stripped)
}
