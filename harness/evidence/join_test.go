package evidence

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Over random joins: the words name every record that did not join exactly once (by id, or by
// line for a line without one) and every phase's count, say "every record joined exactly once"
// exactly when that is so, and never show Go's formatting of a map or a slice.
func TestJoinInWordsNamesEveryRecordAndNoGoSyntax(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ids := func(prefix string) []string {
		var out []string
		for i := range rng.IntN(3) {
			out = append(out, fmt.Sprintf("%s-%d", prefix, i))
		}
		return out
	}
	for trial := range 500 {
		j := Join{Matched: rng.IntN(50), ClientRecords: rng.IntN(60), ServerRecords: rng.IntN(60), ByPhase: map[string]int{"warmup": rng.IntN(9), "profiling": rng.IntN(40)},
			UnmatchedClient: ids("uc"), UnmatchedServer: ids("us"), DuplicateClient: ids("dc"), DuplicateServer: ids("ds")}
		for range rng.IntN(3) {
			j.MissingID = append(j.MissingID, 1+rng.IntN(99))
		}
		s := j.String()
		for _, bad := range []string{"map[", "[]", "%!", "[u", "[d"} {
			if strings.Contains(s, bad) {
				t.Fatalf("trial %d: Go syntax %q in %q", trial, bad, s)
			}
		}
		var named []string
		named = append(append(append(append(named, j.UnmatchedClient...), j.UnmatchedServer...), j.DuplicateClient...), j.DuplicateServer...)
		for _, l := range j.MissingID {
			named = append(named, fmt.Sprint(l))
		}
		named = append(named, fmt.Sprintf("warmup %d", j.ByPhase["warmup"]), fmt.Sprintf("profiling %d", j.ByPhase["profiling"]))
		for _, n := range named {
			if !strings.Contains(s, n) {
				t.Fatalf("trial %d: %q not named in %q", trial, n, s)
			}
		}
		if strings.Contains(s, "every record joined exactly once") != j.OK() {
			t.Fatalf("trial %d: ok %v, words %q", trial, j.OK(), s)
		}
	}
}
