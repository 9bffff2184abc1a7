package target

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// A target file of an unknown kind is refused when read, naming the known kinds, so no code
// downstream meets a kind it has no steps for.
func TestReadRefusesAnUnknownKind(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.yaml")
	body := "name: x\nkind: trtmc-nightly\nmanifests: [a]\nbuild: [b]\ngate: [g]\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Read(path, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), `kind "trtmc-nightly" is not one of [reference trtmc]`) {
		t.Fatalf("unknown kind: %v", err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(body, "trtmc-nightly", "trtmc", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	tg, err := Read(path, t.TempDir())
	if err != nil || tg.Traits().Kind() != TRTMC {
		t.Fatalf("kind trtmc: %+v, %v", tg, err)
	}
}

// traitsWant is every trait of every kind, stated here once more: a kind registered without a
// row, or a trait that changes, fails TestEveryTraitOfEveryKind.
type traitsWant struct {
	embedded, inCheckout, servedInfo, omitInput, taskMetrics, spans bool
	refusalStatus                                                   int
	refusalRecorded                                                 bool
}

func TestEveryTraitOfEveryKind(t *testing.T) {
	want := map[Kind]traitsWant{
		Reference: {embedded: true, taskMetrics: true, spans: true, refusalStatus: 400, refusalRecorded: true},
		TRTMC:     {inCheckout: true, servedInfo: true, omitInput: true, refusalStatus: 404},
	}
	if len(Kinds()) != len(want) {
		t.Errorf("registered kinds %v, table %d rows: every kind needs its row", Kinds(), len(want))
	}
	for _, k := range Kinds() {
		w, ok := want[k]
		if !ok {
			t.Errorf("kind %s has no row", k)
			continue
		}
		tr := k.Traits()
		r := tr.Refusal()
		got := traitsWant{tr.Embedded(), tr.InCheckout(), tr.RecordsServedInfo(), tr.RecordsOmitInputFields(),
			tr.ExportsTaskMetrics(), tr.RecordsCarrySpans(), r.Status, r.Recorded}
		if got != w || tr.Kind() != k || TraitsOf(string(k)) != tr {
			t.Errorf("kind %s: traits %+v (kind %s), want %+v", k, got, tr.Kind(), w)
		}
		if r.Code == "" || r.Mentions == "" || r.Source == "" {
			t.Errorf("kind %s: refusal %+v must name its code, the message's words and its source", k, r)
		}
		var back Kind
		if err := yaml.Unmarshal([]byte(string(k)), &back); err != nil || back != k {
			t.Errorf("kind %s read from YAML as %q, %v", k, back, err)
		}
	}
	// A recorded kind no implementation has claims nothing, and is refused with a record required.
	u := TraitsOf("trtmc-nightly")
	got := traitsWant{u.Embedded(), u.InCheckout(), u.RecordsServedInfo(), u.RecordsOmitInputFields(),
		u.ExportsTaskMetrics(), u.RecordsCarrySpans(), u.Refusal().Status, u.Refusal().Recorded}
	if got != (traitsWant{refusalStatus: 400, refusalRecorded: true}) || u.Kind() != "trtmc-nightly" {
		t.Errorf("an unregistered kind: %+v", got)
	}
}

// Two kinds never answer every trait alike: a kind that does is a name, not a kind.
func TestNoTwoKindsShareAllTraits(t *testing.T) {
	seen := map[string]Kind{}
	for _, k := range Kinds() {
		tr := k.Traits()
		key := fmt.Sprint(tr.Embedded(), tr.InCheckout(), tr.RecordsServedInfo(), tr.RecordsOmitInputFields(),
			tr.ExportsTaskMetrics(), tr.RecordsCarrySpans(), tr.Refusal())
		if other, ok := seen[key]; ok {
			t.Errorf("kinds %s and %s have the same traits", other, k)
		}
		seen[key] = k
	}
}

// A stage in aiperf or capacity that is not one is refused when read, naming the stages: its
// settings would apply to nothing (a typo would silently leave a stage at the defaults).
func TestReadRefusesAnUnknownStage(t *testing.T) {
	base := "name: x\nkind: reference\nmanifests: [a]\nbuild: [b]\ngate: [g]\n"
	for _, c := range []struct{ body, want string }{
		{base + "aiperf:\n  asr: {requests: 1}\n", ""},
		{base + "aiperf:\n  asr: {requests: 1}\n  ars: {requests: 1}\n", `unknown stage "ars"`},
		{base + "capacity:\n  t2j: {runs: 1}\n", `unknown stage "t2j"`},
	} {
		path := filepath.Join(t.TempDir(), "t.yaml")
		if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		tg, err := Read(path, t.TempDir())
		switch {
		case c.want == "" && (err != nil || tg.StageLoad("asr").Requests != 1):
			t.Errorf("%q: %+v, %v", c.body, tg, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
	}
}
