package plot

import (
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLatencySVGIsWellFormed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l.svg")
	if err := WriteLatencySVG(path, "a & b <c>", []float64{12, 10, 15}, []float64{9, 8, 11}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	dec := xml.NewDecoder(strings.NewReader(string(data)))
	strokes := map[string]int{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "path" {
			for _, a := range se.Attr {
				for _, c := range []string{"#D62728", "#1F77B4", "#2CA02C"} {
					if a.Name.Local == "style" && strings.Contains(a.Value, "stroke:"+c) {
						strokes[c]++
					}
				}
			}
		}
	}
	// Client and Task: a legend swatch and a curve each; the overhead: its curve.
	if strokes["#D62728"] < 2 || strokes["#1F77B4"] < 2 || strokes["#2CA02C"] < 1 {
		t.Fatalf("curves by colour %v, want client and Task with swatches and the overhead curve:\n%s", strokes, data)
	}
}
