package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// duration is a time the docs state: "15.4 min", "975 s", "about 2 minutes".
var duration = regexp.MustCompile(`\b\d+(\.\d+)?(–\d+(\.\d+)?)? ?(min|minutes|s)\b`)

// The README states how long the commands take in one table only: each row has a date and the
// machine and load it was measured on, and no other line of README.md gives a time for make
// qualify, smoke or test (a second, undated figure is how the README came to contradict itself).
func TestReadmeTimesAreOneDatedTable(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	date := regexp.MustCompile(`^20\d\d-\d\d-\d\d$`)
	rows, inTable, inLoaded := 0, false, false
	var took []string // the table's "took" cells: what the loaded paragraph may quote
	for i, line := range lines {
		switch {
		case strings.HasPrefix(line, "| command | situation | took | date | machine, load |"):
			inTable = true
			continue
		case inTable && !strings.HasPrefix(line, "|"):
			inTable = false
		case strings.HasPrefix(line, "**What a loaded runner takes.**"):
			inLoaded = true
		case inLoaded && line == "":
			inLoaded = false
		}
		if inTable {
			if strings.HasPrefix(line, "|---") {
				continue
			}
			cells := strings.Split(strings.Trim(line, "|"), "|")
			if len(cells) != 5 || !date.MatchString(strings.TrimSpace(cells[3])) || strings.TrimSpace(cells[4]) == "" || !duration.MatchString(cells[2]) {
				t.Errorf("README.md:%d: a time row needs a duration, a date and a machine/load: %q", i+1, line)
			}
			rows++
			took = append(took, cells[2])
			continue
		}
		if inLoaded { // what a loaded runner takes: only times some row of the table gives
			for _, d := range duration.FindAllString(line, -1) {
				if !slices.ContainsFunc(took, func(c string) bool {
					return regexp.MustCompile(`(^|[^\d.])` + regexp.QuoteMeta(d) + `\b`).MatchString(c)
				}) {
					t.Errorf("README.md:%d: %q is in no row of the time table: %q", i+1, d, line)
				}
			}
			continue
		}
		if duration.MatchString(line) && regexp.MustCompile(`make (qualify|smoke|test)|\bsmoke\b|warm|cold`).MatchString(line) {
			t.Errorf("README.md:%d states a time outside the dated table: %q", i+1, line)
		}
	}
	if rows < 6 {
		t.Errorf("the README's time table has %d rows: smoke, warm and cold qualify and make test each need one", rows)
	}
}
