package report

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report/doc"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// Light is a row's traffic light, the first column of both reports' row tables (defined in their legend).
type Light string

// The lights.
const (
	Green  Light = "green"  // the row reached what its kind can reach
	Yellow Light = "yellow" // a counted row stopped short without a failing claim
	Red    Light = "red"    // a claim failed
	White  Light = "white"  // nothing was claimed: planned, excluded or blocked
)

// RowLight is the traffic light of one result row.
func RowLight(r evidence.Result) Light {
	switch {
	case r.Status == "failed":
		return Red
	case r.Status == "aiperf-qualified":
		return Green
	case r.Status == "family-validated" && !r.Counted:
		return Green
	case r.Status == "family-validated" || r.Status == "implemented":
		return Yellow
	default:
		return White
	}
}

// WriteHTML writes report.html into runDir: the same document as qualification.md, in one
// self-contained file (no script, no external resource) with every figure inline.
func WriteHTML(runDir string, e evidence.Evidence) error { return writeHTMLTo(runDir, runDir, e) }

// writeHTMLTo renders the run in runDir (its figures inlined) into outDir/report.html.
func writeHTMLTo(runDir, outDir string, e evidence.Evidence) error {
	page, err := HTML(runDir, e)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, "report.html"), page, 0o644); err != nil {
		return fmt.Errorf("write report.html: %w", err)
	}
	return nil
}

// HTML renders report.html from the run's document (Build). Figures are embedded as data: URIs
// in <img>, which a browser never runs scripts from, so a plot file cannot inject anything
// into the page.
func HTML(runDir string, e evidence.Evidence) ([]byte, error) {
	page, err := doc.HTML(Build(e), inlineFrom(runDir))
	if err != nil {
		return nil, fmt.Errorf("render report.html: %w", err)
	}
	return page, nil
}

// inlineFrom reads a figure for the page: only an .svg or .png file inside the run directory.
func inlineFrom(runDir string) doc.Inline {
	return func(src string) (string, error) {
		mime := map[string]string{".svg": "image/svg+xml", ".png": "image/png"}[filepath.Ext(src)]
		if !filepath.IsLocal(src) || mime == "" {
			return "", fmt.Errorf("figure path %q is not an .svg or .png file inside the run directory", src)
		}
		data, err := runfile.ReadIn(runDir, src)
		if err != nil {
			return "", fmt.Errorf("inline figure: %w", err)
		}
		return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data), nil
	}
}
