package report

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report/doc"
)

var updateRendering = flag.Bool("update-rendering", false, "rewrite testdata/rendering.sum after evidence.SchemaVersion was raised")

// renderingSum pins what the renderers make of fixed evidence, under the evidence schema that
// was current when they made it.
const renderingSum = "testdata/rendering.sum"

// renderings is everything `qual verify` renders again from a run and compares: the reports,
// summary.json and pictures byte for byte, the JUnit properties one by one; from the published run's fixture and
// from the sample run in its unusual states.
func renderings(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	pics, e := realRun(t)
	d := Build(e, pics)
	out["full/qualification.md"] = []byte(doc.Markdown(d))
	out["full/report.html"] = doc.HTML(d)
	for name, b := range FigureFiles(d) {
		out["full/"+name] = b
	}
	s := sampleRun()
	s.Versions = map[string]string{evidence.BuildTagsKey: "qual_slowdown"}
	sd := Build(s, nil)
	out["sample/qualification.md"] = []byte(doc.Markdown(sd))
	out["sample/report.html"] = doc.HTML(sd)
	// A narrowed run's reports word its stages' and rows' statuses in its scope (evidence.StageWord):
	// a smoke run of the sample at a reduced load.
	sm := sampleRun()
	sm.RunID = "smoke-r1"
	asr := &sm.Stages[0]
	asr.Selection = evidence.SelectionOf(append(asr.Inventory, evidence.InventoryRow{Profile: "sphinx-en-us", Kind: evidence.KindFull, Counted: true},
		evidence.InventoryRow{Profile: "other", Kind: evidence.KindFull, Counted: true}), "smoke")
	asr.Selection.ReducedLoad = []string{"runs 2 of 5"}
	smd := Build(sm, nil)
	out["smoke/qualification.md"] = []byte(doc.Markdown(smd))
	out["smoke/report.html"] = doc.HTML(smd)
	// summary.json: verify derives it again and compares it byte for byte too.
	for name, ev := range map[string]evidence.Evidence{"full": e, "sample": s, "smoke": sm} {
		b, err := SummaryJSON(ev)
		if err != nil {
			t.Fatal(err)
		}
		out[name+"/summary.json"] = b
	}
	for _, ev := range []evidence.Evidence{e, s} {
		for _, st := range ev.Stages {
			out["junit/"+ev.RunID+"/"+st.Stage+"/properties"] = junitText(JUnitStageProperties(st))
			for _, r := range st.Results {
				out["junit/"+ev.RunID+"/"+st.Stage+"/"+r.Profile] = []byte(fmt.Sprintf("%+v", JUnitFigures(r)))
			}
		}
	}
	return out
}

// junitText is a stage's JUnit properties as sorted name=value lines.
func junitText(props map[string]string) []byte {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(props)) {
		fmt.Fprintf(&b, "%s=%s\n", name, props[name])
	}
	return []byte(b.String())
}

// A run's reports and pictures are part of its schema: verify draws them again with its own
// renderers, so a renderer that draws other bytes would call every earlier honest run forged.
// When the renderings change, evidence.SchemaVersion must rise with them (earlier runs are then
// "another evidence schema", named as such, exit 2), and only then may the sums be rewritten.
func TestRenderingsChangeOnlyWithTheSchema(t *testing.T) {
	got := sums(renderings(t))
	schema, want, err := readSums(renderingSum)
	if err != nil && !*updateRendering {
		t.Fatalf("%v (write it: go test ./harness/report -run TestRenderingsChangeOnlyWithTheSchema -update-rendering)", err)
	}
	changed := diffSums(want, got)
	switch {
	case len(changed) == 0 && schema == evidence.SchemaVersion:
		return
	case schema == evidence.SchemaVersion && onlyNew(changed) && *updateRendering:
		// more renderings pinned, none changed: no earlier run reads differently
	case schema == evidence.SchemaVersion:
		t.Fatalf("the renderings changed under evidence schema %d (%s): raise evidence.SchemaVersion, say why beside it, then rerun with -update-rendering", schema, strings.Join(changed, ", "))
	case !*updateRendering:
		t.Fatalf("%s pins schema %d, evidence is schema %d: rerun with -update-rendering", renderingSum, schema, evidence.SchemaVersion)
	}
	if err := writeSums(renderingSum, got); err != nil {
		t.Fatal(err)
	}
}

// The pin cannot be satisfied by rewriting it: under an unchanged schema the update refuses a
// changed or removed rendering and takes only added ones.
func TestRenderingSumsRefuseAnUpdateUnderTheSameSchema(t *testing.T) {
	want := map[string]string{"a": "1", "b": "2"}
	for _, tc := range []struct {
		got     map[string]string
		changed string
	}{
		{map[string]string{"a": "1", "b": "3"}, "b changed"},
		{map[string]string{"a": "1"}, "b gone"},
		{map[string]string{"a": "1", "b": "2", "c": "4"}, "c new"},
	} {
		if got := strings.Join(diffSums(want, tc.got), ","); got != tc.changed {
			t.Errorf("diffSums = %q, want %q", got, tc.changed)
		}
	}
	if len(diffSums(want, want)) != 0 {
		t.Error("identical sums differ")
	}
	if !onlyNew([]string{"c new"}) || onlyNew([]string{"c new", "b changed"}) || onlyNew([]string{"b gone"}) {
		t.Error("onlyNew lets a changed or gone rendering through, or refuses an added one")
	}
}

// onlyNew says whether every difference is a rendering the sums did not pin yet.
func onlyNew(changed []string) bool {
	for _, c := range changed {
		if !strings.HasSuffix(c, " new") {
			return false
		}
	}
	return true
}

func sums(files map[string][]byte) map[string]string {
	out := make(map[string]string, len(files))
	for name, b := range files {
		h := sha256.Sum256(b)
		out[name] = hex.EncodeToString(h[:])
	}
	return out
}

func diffSums(want, got map[string]string) []string {
	var out []string
	for name, w := range want {
		switch g, ok := got[name]; {
		case !ok:
			out = append(out, name+" gone")
		case g != w:
			out = append(out, name+" changed")
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			out = append(out, name+" new")
		}
	}
	sort.Strings(out)
	return out
}

// readSums reads "evidence schema N" and then "<sha256>  <name>" lines.
func readSums(path string) (int, map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	schema := 0
	if !sc.Scan() {
		return 0, nil, fmt.Errorf("%s is empty", path)
	}
	if _, err := fmt.Sscanf(sc.Text(), "evidence schema %d", &schema); err != nil {
		return 0, nil, fmt.Errorf("%s: first line %q: %w", path, sc.Text(), err)
	}
	out := map[string]string{}
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			return 0, nil, fmt.Errorf("%s: line %q is not \"<sha256>  <name>\"", path, sc.Text())
		}
		out[name] = sum
	}
	return schema, out, sc.Err()
}

func writeSums(path string, sums map[string]string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "evidence schema %d\n", evidence.SchemaVersion)
	for _, name := range slices.Sorted(maps.Keys(sums)) {
		fmt.Fprintf(&b, "%s  %s\n", sums[name], name)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
