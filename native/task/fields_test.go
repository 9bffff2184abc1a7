package task

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Two field lists share an identity only if they are the same list: every way of moving bytes
// (NUL included) from one field to its neighbour, and random lists over a tiny alphabet where
// such shifts are common, give distinct hashes.
func TestFieldsSHA256IsUnambiguous(t *testing.T) {
	if ImageRequestSHA256(ImageRequest{Prompt: "a red\x00kite", NegativePrompt: "blue"}) ==
		ImageRequestSHA256(ImageRequest{Prompt: "a red", NegativePrompt: "kite\x00blue"}) {
		t.Fatal("a NUL moved from the prompt into the negative prompt keeps the identity")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[string][]string{}
	for range 20000 {
		fields := make([]string, 1+rng.IntN(3))
		for i := range fields {
			var b strings.Builder
			for range rng.IntN(4) {
				b.WriteByte("\x00:1a"[rng.IntN(4)])
			}
			fields[i] = b.String()
		}
		h := FieldsSHA256("t", fields...)
		if prev, ok := seen[h]; ok && !slices.Equal(prev, fields) {
			t.Fatalf("%q and %q share identity %s", prev, fields, h)
		}
		seen[h] = fields
	}
	if len(seen) < 1000 {
		t.Fatalf("only %d distinct lists drawn: the property was not exercised", len(seen))
	}
}
