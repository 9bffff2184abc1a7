package metrics

import (
	"reflect"
	"testing"
)

func TestTRTMCFamilyNormalizer(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Hello, World!", "hello world"},
		{"  don't   STOP  ", "don't stop"},             // inner apostrophe kept
		{"version 3.5, please.", "version 3.5 please"}, // inner dot kept, edge comma stripped
		{"«Straße»", "strasse"},                        // full casefold, not just lowercase
		{"-- ... !!", ""},                              // punctuation-only words vanish
		{"\"quoted\"\tand\nnewline", "quoted and newline"},
	}
	for _, c := range cases {
		if got := TRTMCFamily().Text(c.in); got != c.want {
			t.Errorf("TRTMCFamily(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestGoldWERNormalizer(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Hello, World!", "hello world"},
		{"don't  Stop", "don't stop"},                 // apostrophe kept
		{"it’s", "it's"},                              // typographic apostrophe folded to ASCII
		{"version 3.5, please.", "version 35 please"}, // every other punctuation mark removed
		{"well-known", "wellknown"},
		{"  ", ""},
	}
	for _, c := range cases {
		if got := GoldWER().Text(c.in); got != c.want {
			t.Errorf("GoldWER(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNormalizerByName(t *testing.T) {
	for _, name := range []string{"trtmc-family-v1", "gold-wer-v1", "identity-v1"} {
		n, ok := NormalizerByName(name)
		if !ok || n.Name != name {
			t.Errorf("NormalizerByName(%q) = %v, %v", name, n.Name, ok)
		}
	}
	if _, ok := NormalizerByName("nope"); ok {
		t.Error("unknown normalizer name was found")
	}
	if got := Identity().Tokens(" A, b "); !reflect.DeepEqual(got, []string{"A,", "b"}) {
		t.Errorf("Identity tokens = %q", got)
	}
}
