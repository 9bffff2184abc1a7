package evidence

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
)

// pngURI inlines a PNG of the run (a row's timeline); only a .png file inside the run
// directory is read.
func pngURI(runDir, rel string) (template.URL, error) {
	if !filepath.IsLocal(rel) || filepath.Ext(rel) != ".png" {
		return "", fmt.Errorf("figure path %q is not a .png file inside the run directory", rel)
	}
	data, err := os.ReadFile(filepath.Join(runDir, rel))
	if err != nil {
		return "", fmt.Errorf("inline figure: %w", err)
	}
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(data)), nil
}
